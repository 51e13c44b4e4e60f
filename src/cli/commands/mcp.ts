/**
 * `dossier mcp`: the MCP server over stdio for assistants (tools deep_research, ask, search,
 * fetch, research_start/status/result/cancel; finished reports as resources). Stdout carries
 * protocol messages only; notices go to stderr. When the client closes stdin, runs under way go
 * on until they end and then it exits; SIGINT/SIGTERM cancel them (recorded, resumable).
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";
import { commandEntry } from "./catalog.ts";

/** Flags of `dossier mcp`. */
export interface McpFlags extends GlobalFlags {
  maxRuns?: string;
}

/** Runs the stdio MCP server until the client goes away. */
export async function runMcp(io: CliIo, flags: McpFlags): Promise<void> {
  const maxRuns = flags.maxRuns === undefined ? undefined : Number(flags.maxRuns);
  if (maxRuns !== undefined && (!Number.isInteger(maxRuns) || maxRuns < 1 || maxRuns > 64)) {
    throw new DossierError(
      "INPUT_INVALID",
      `--max-runs must be a whole number from 1 to 64, got "${flags.maxRuns}"`,
    );
  }
  const [{ createDossierForCli }, { serveMcpStdio }] = await Promise.all([
    import("../dossier-cli.ts"),
    import("../../mcp/stdio.ts"),
  ]);
  const dossier = createDossierForCli(io, flags);
  const onSignal = (signal: string) => void server.stop(`the MCP server stopped (${signal})`);
  const server = await serveMcpStdio({
    dossier,
    env: io.env,
    ...(maxRuns ? { maxRuns } : {}),
    onNotice: (line) => io.err(`dossier: ${line}\n`),
  });
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await server.closed;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await dossier.close();
  }
}

/** Registers `dossier mcp`. */
export function registerMcpCommand(program: Command, io: CliIo): void {
  program
    .command("mcp")
    .description(commandEntry("mcp").description)
    .option("--max-runs <n>", "research runs at once (default 2)")
    .action(async (_opts: McpFlags, cmd: Command) => {
      await runMcp(io, cmd.optsWithGlobals<McpFlags>());
    });
}
