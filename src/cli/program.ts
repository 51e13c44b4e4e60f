/**
 * The `dossier` command-line program.
 */

import { Command } from "commander";
import { COMMANDS } from "./commands/catalog.ts";
import { CliExit, EXIT_USAGE, exitCodeOf, formatError, isCommanderExit } from "./errors.ts";
import type { CliIo } from "./io.ts";
import { VERSION } from "./version.ts";

/** Environment variables named in the help text. */
const ENVIRONMENT_HELP =
  "DOSSIER_MODEL, DOSSIER_MODEL_<ROLE>, DOSSIER_BASE_URL, DOSSIER_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, DOSSIER_SEARCH, TAVILY_API_KEY, EXA_API_KEY, BRAVE_API_KEY, SERPER_API_KEY, JINA_API_KEY, SEARXNG_URL, DOSSIER_ACADEMIC, OPENALEX_EMAIL, DOSSIER_HOME, DOSSIER_DATABASE_URL, DOSSIER_REDIS_URL, DOSSIER_LLM_CONCURRENCY, DOSSIER_ALLOW_PRIVATE_NETWORK, DOSSIER_WEBHOOK_SECRET, DOSSIER_ALLOWED_HOSTS, DOSSIER_ACCESS_LOG, DOSSIER_CONCURRENCY, DOSSIER_LANGUAGE, DOSSIER_REVIEW_TIMEOUT, DOSSIER_OTEL, DOSSIER_OTEL_CONTENT";

/** Global options that take a value (their value is not a command name). */
const VALUE_OPTIONS = new Set(["--config", "--home", "--database-url", "--model"]);

/** The command `argv` runs (`help <name>` counts as `<name>`), or null. */
export function commandOf(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return null;
    if (VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    if (arg === "help") return argv[i + 1] ?? null;
    return arg;
  }
  return null;
}

/**
 * Builds the program for the given surroundings. Only the command `argv` names is loaded in
 * full; the others are listed by name and description.
 */
export async function createProgram(io: CliIo, argv: readonly string[] = []): Promise<Command> {
  const program = new Command("dossier")
    .description(
      "Dossier — an auditable deep-research engine: plans, searches the web and your documents, and writes long reports whose every citation resolves to a retrieved passage.",
    )
    .version(VERSION, "-v, --version", "print the version")
    .option("--config <file>", `configuration file (default ./${"dossier.config.json"})`)
    .option("--home <dir>", "data directory (default ./.dossier; DOSSIER_HOME)")
    .option(
      "--database-url <url>",
      "a PostgreSQL store shared by several processes, postgres://… (DOSSIER_DATABASE_URL; default SQLite under --home)",
    )
    .option("--model <provider:model>", "default model (DOSSIER_MODEL)")
    .option("--debug", "print stack traces and error details")
    .showHelpAfterError("(run dossier --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .addHelpText(
      "after",
      `\nConfiguration precedence: flags > environment > dossier.config.json > defaults.\nEnvironment: ${ENVIRONMENT_HELP}.`,
    );
  const target = commandOf(argv);
  for (const entry of COMMANDS) {
    if (entry.name === target) (await entry.load())(program, io);
    else program.command(`${entry.name}${entry.args ? ` ${entry.args}` : ""}`).description(entry.description);
  }
  return program;
}

/** Runs the CLI with `argv` (without the node and script entries); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = await createProgram(io, argv);
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
