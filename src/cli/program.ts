/**
 * The `dossier` command-line program.
 */

import { Command } from "commander";
import { ENVIRONMENT_HELP, registerConfigCommand } from "./commands/config.ts";
import { registerEvalCommand } from "./commands/eval/index.ts";
import { registerFetchCommand } from "./commands/fetch.ts";
import { registerIndexCommand } from "./commands/index-docs.ts";
import { registerResearchCommand } from "./commands/research.ts";
import { registerRunsCommand } from "./commands/runs.ts";
import { registerSearchCommand } from "./commands/search.ts";
import { CliExit, EXIT_USAGE, exitCodeOf, formatError, isCommanderExit } from "./errors.ts";
import type { CliIo } from "./io.ts";
import { VERSION } from "./version.ts";

/** Builds the program for the given surroundings. */
export function createProgram(io: CliIo): Command {
  const program = new Command("dossier")
    .description(
      "Dossier — an auditable deep-research engine: plans, searches the web and your documents, and writes long reports whose every citation resolves to a retrieved passage.",
    )
    .version(VERSION, "-v, --version", "print the version")
    .option("--config <file>", `configuration file (default ./${"dossier.config.json"})`)
    .option("--home <dir>", "data directory (default ./.dossier; DOSSIER_HOME)")
    .option("--model <provider:model>", "default model (DOSSIER_MODEL)")
    .option("--debug", "print stack traces and error details")
    .showHelpAfterError("(run dossier --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .addHelpText(
      "after",
      `\nConfiguration precedence: flags > environment > dossier.config.json > defaults.\nEnvironment: ${ENVIRONMENT_HELP.join(", ")}.`,
    );
  registerResearchCommand(program, io);
  registerConfigCommand(program, io);
  registerSearchCommand(program, io);
  registerFetchCommand(program, io);
  registerIndexCommand(program, io);
  registerRunsCommand(program, io);
  registerEvalCommand(program, io);
  return program;
}

/** Runs the CLI with `argv` (without the node and script entries); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (isCommanderExit(error)) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof CliExit) return error.exitCode;
    const debug = argv.includes("--debug");
    io.err(formatError(error, debug));
    return exitCodeOf(error);
  }
}
