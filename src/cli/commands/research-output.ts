/**
 * What `dossier research` and `dossier runs resume` print when a run ends: the report's paths
 * and figures (or one JSON line with `--json`), a one-line error on stderr for a failed run,
 * and the exit code.
 */

import { claimSummaryLine } from "../../core/claim-verdicts.ts";
import { reportStats } from "../../runtime/report-stats.ts";
import type { ResearchResult } from "../../runtime/research-handle.ts";
import type { CliIo } from "../io.ts";
import { printAwaitingReview } from "./runs-review.ts";

/** Prints the end of a run; resolves to the exit code (0, also for a run awaiting review of its plan; 1 failed, 130/143 cancelled). */
export function printRunResult(
  io: CliIo,
  result: ResearchResult,
  options: { json?: boolean; terminated?: boolean },
): number {
  const { record, report } = result;
  const u = record.usage;
  if (options.json) {
    const stats = report ? reportStats(report) : null;
    io.out(
      `${JSON.stringify({
        runId: record.id,
        strategy: record.strategy,
        status: record.status,
        reportPaths: result.paths,
        sources: stats?.sources ?? 0,
        citations: stats?.citations ?? 0,
        groundedShare: stats?.groundedShare ?? null,
        claims: stats?.claims ?? null,
        tokens: { input: u?.inputTokens ?? null, output: u?.outputTokens ?? null },
        costUsd: u?.costUsd ?? null,
        llmCalls: u?.llmCalls ?? 0,
        toolCalls: u?.toolCalls ?? 0,
        wallMs: record.finishedAt ? Date.parse(record.finishedAt) - Date.parse(record.createdAt) : null,
        stopReason: record.stopReason,
        ...(record.error ? { error: record.error } : {}),
        // Stopped for review: the plan to answer (dossier runs review).
        ...(result.plan ? { plan: result.plan } : {}),
      })}\n`,
    );
  } else if (record.status === "awaiting-review") {
    printAwaitingReview(io, result);
  } else if (report) {
    const stats = reportStats(report);
    const grounded =
      stats.groundedShare === null
        ? ""
        : `, ${(stats.groundedShare * 100).toFixed(0)}% of cited sentences grounded`;
    const cost =
      u?.costUsd === null || u?.costUsd === undefined ? "cost unknown" : `$${u.costUsd.toFixed(4)}`;
    io.out(
      `${[
        `Report: ${report.title}`,
        ...result.paths.map((p) => `  ${p}`),
        `${stats.sources} sources cited, ${stats.citations} citations${grounded}; stop: ${record.stopReason}`,
        ...(report.verification ? [claimSummaryLine(report.verification)] : []),
        `run ${record.id}: ${u?.llmCalls ?? 0} model calls, ${u?.toolCalls ?? 0} tool calls, ${u?.inputTokens ?? "?"}+${u?.outputTokens ?? "?"} tokens, ${cost}`,
      ].join("\n")}\n`,
    );
  }
  if (record.status === "cancelled") {
    io.err(`dossier: run ${record.id} cancelled; its events are kept (dossier runs events ${record.id})\n`);
    return options.terminated ? 143 : 130;
  }
  if (record.status === "failed") {
    io.err(
      `dossier: error [${record.error?.code ?? "INTERNAL"}]: ${record.error?.message ?? record.stopReason}\n`,
    );
    return 1;
  }
  return 0;
}
