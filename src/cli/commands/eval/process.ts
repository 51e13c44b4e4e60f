/**
 * `dossier eval process <runId>`: process metrics of a stored run, from its event log.
 */

import type { Command } from "commander";
import { formatProcessMetrics } from "../../../eval/process/process-format.ts";
import { computeProcessMetrics } from "../../../eval/process/process-metrics.ts";
import type { CliIo } from "../../io.ts";
import { openCliServices } from "../../services.ts";
import type { GlobalFlags } from "../../settings.ts";
import { writeDetails } from "./rubric.ts";

/** Registers `dossier eval process`. */
export function registerProcessEval(evalCommand: Command, io: CliIo): void {
  evalCommand
    .command("process <runId>")
    .description(
      "process metrics of a run from its event log: reflection turns, query repetition, tool share and failures, outline misses, heading/temporal/table checks, tokens, cost, wall time, tool calls per step, and where the wall time went on the chain of calls that decided the end (— = not in the log)",
    )
    .option("--json", "print the metrics as one JSON line")
    .option("--out <file>", "write the metrics and one line per tool as JSON Lines")
    .action(async (runId: string, flags: { json?: boolean; out?: string }, cmd: Command) => {
      const services = openCliServices(io, cmd.optsWithGlobals<GlobalFlags>());
      try {
        const id = await services.store.runs.resolveId(runId);
        const metrics = computeProcessMetrics(await services.store.events.list(id));
        writeDetails(io, flags.out, [
          { kind: "metrics", ...metrics },
          ...metrics.tools.perTool.map((t) => ({ kind: "tool", runId: id, ...t })),
        ]);
        if (flags.json) {
          io.out(`${JSON.stringify({ ...metrics, runId: id })}\n`);
          return;
        }
        io.out(`Process metrics of run ${id}\n\n${formatProcessMetrics(metrics)}`);
      } finally {
        await services.close();
      }
    });
}
