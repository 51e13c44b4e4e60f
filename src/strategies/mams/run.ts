/**
 * The mams strategy (seed: query-specific rubrics + MaMs, §3.4, App. B, C.4–C.9): a
 * multi-agent Markov-state workflow. The run's whole state is ⟨memory, plan, report⟩, and every
 * prompt is rebuilt from it — there is no chat history.
 *
 * 1. Search agent (role `searcher`; search-agent.ts): reads the state, rewrites the plan (a
 *    Markdown list) and issues 1–5 tool calls that run at once, or an empty list to finish. At
 *    most `maxTurns` (default 10) tool-calling turns; once they are spent (or the tool-call
 *    budget is) its prompt says so and asks for the final plan, and no tool runs again.
 * 2. The turn's raw observation — every search result, and the text of every page read (the
 *    page itself, split into paragraph-bounded passages, each an evidence id; no reader model
 *    condenses it) — is split on paragraph boundaries into chunks of at most `chunkTokens`
 *    (default 24,000, the seed's observation window, Table 4) estimated tokens.
 * 3. For each chunk, in order, the state agent (role `state`) rewrites the memory and the plan,
 *    which replace the old ones (Eq. 4; facts keep their evidence ids; the memory stays within
 *    `memoryTokens`, default 16,384; memory.ts), and the report agent (role `writer`) integrates
 *    the chunk into the report (Eq. 5), citing the numbered sources it is shown as
 *    `<sup>[n]</sup>` or by evidence id (writer-sources.ts), concurrently (chunk-update.ts).
 * 4. The final report goes through the shared citation pass, checks and renderers; it may
 *    cite only evidence that was shown to the agents.
 *
 * Fallbacks, each a `warning` event: a search reply that fails ends the research
 * (`SEARCH_FALLBACK`); a failed state update keeps the memory (`STATE_FALLBACK`); a rewritten
 * memory that still breaks a rule when re-asked is repaired (`MEMORY_REPAIRED`); a failed report
 * update keeps the report (`REPORT_FALLBACK`); a source number naming nothing listed, given again
 * when re-asked, is dropped (`CITATION_UNKNOWN`); calls past the per-turn cap are not run
 * (`CALLS_CAPPED`); a report update that only appends is counted (`REPORT_APPENDED`); a run
 * that ends without a report lists the evidence gathered (`EXTRACTIVE_REPORT`). At a budget
 * limit exploration stops and the report is finished from the state. The run in progress (the
 * state, the figures, the limits) is run-state.ts.
 */

import { startIteration } from "../../kit/exploration-budget.ts";
import type { Observation } from "../../kit/observation.ts";
import { requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { describeAction, runAction } from "../../kit/search-actions.ts";
import { extractive } from "../../kit/section-writer.ts";
import type { ResearchOutcome } from "../types.ts";
import { updateFromChunk } from "./chunk-update.ts";
import { readPageText } from "./page-text.ts";
import { chunkObservation, planAsList, type SearchReply } from "./protocol.ts";
import { finishMamsReport } from "./report.ts";
import { reviewFirstTurn } from "./review.ts";
import { type MamsRun, startMamsRun, stopRun } from "./run-state.ts";
import { askFinalPlan, askForCalls, callRoom } from "./search-agent.ts";
import { observationBlocks, turnLines } from "./turn-observation.ts";

export type { MamsFigures } from "./figures.ts";

/** Options of {@link runMams}. */
export interface MamsOptions {
  tools: ResearchTools;
  /** Language code of the report. */
  language: string;
  /** Tool-calling turns at most. Default 10. */
  maxTurns?: number;
  /** Tool calls per turn at most. Default 5. */
  maxCallsPerTurn?: number;
  /** Estimated tokens per observation chunk. Default 24,000 (the seed's observation window). */
  chunkTokens?: number;
  /** Characters per observation chunk, when set (instead of `chunkTokens`). */
  chunkChars?: number;
  /** Estimated tokens the memory may hold (a rewrite over it is re-asked, then cut). Default 16,384. */
  memoryTokens?: number;
  /** Estimated tokens of a page's text that are chunked (head and tail beyond). Default 120,000. */
  maxPageTokens?: number;
  /** Results per search. Default 5. */
  topK?: number;
  /** Share of the token, cost and time budget exploration may use. Default 0.9. */
  explorationShare?: number;
}

/** Runs the mams strategy. */
export async function runMams(ctx: RunContext, options: MamsOptions): Promise<ResearchOutcome> {
  return ctx.inScope("mams", () => mamsLoop(ctx, options));
}

async function mamsLoop(ctx: RunContext, options: MamsOptions): Promise<ResearchOutcome> {
  const run = startMamsRun(ctx, options);
  ctx.emit({ type: "phase", phase: "researching" });
  for (;;) {
    // A spent tool-call budget spends the allowance: the agent is told and asked for its final plan.
    const budgetStop = run.guard();
    if (budgetStop && budgetStop !== "budget:toolCalls") {
      stopRun(run, budgetStop);
      break;
    }
    const room = callRoom(run);
    const turnsLeft = room === 0 ? 0 : run.maxTurns - run.figures.turns;
    if (turnsLeft <= 0) {
      // The allowance is spent: the agent states its final plan; no tool runs again.
      await askFinalPlan(run);
      stopRun(run, room === 0 && run.figures.turns < run.maxTurns ? "budget:toolCalls" : "iteration-cap");
      break;
    }
    const limit = startIteration(ctx);
    if (limit) {
      stopRun(run, limit);
      break;
    }
    // 1. The search agent rewrites the plan and issues the turn's calls (none: it has finished).
    // With `reviewPlan` the first turn's plan is reviewed before its calls run (review.ts).
    const asked = await reviewFirstTurn(run, await askForCalls(run, turnsLeft, room), () =>
      askForCalls(run, turnsLeft, room),
    );
    if ("stop" in asked) {
      stopRun(run, asked.stop);
      break;
    }
    run.state.plan = planAsList(asked.reply.plan);
    if (asked.reply.calls.length === 0) {
      ctx.emit({ type: "decision", decision: "stop", reason: "answered: the search agent finished" });
      stopRun(run, "completed");
      break;
    }
    // 2. The calls run at once; their raw observation is split into chunks.
    const { turn, observations } = await runTurn(run, asked.reply.calls, room);
    const chunks = chunkObservation(observationBlocks(ctx, observations), run.chunkWindow, run.chunkSize);
    // 3. Each chunk updates the memory and the plan, and is integrated into the report (Eq. 4–5).
    await updateFromChunks(run, chunks);
    if (run.stopReason) break;
    ctx.emit({
      type: "decision",
      decision: "continue",
      reason: `turn ${turn} done (${chunks.length} chunk(s))`,
    });
  }
  // 4. The report is finished from the state.
  return finishReport(run);
}

/**
 * Runs a turn's calls at once — those not made before, up to the turn's room (the rest
 * `CALLS_CAPPED`) — and keeps what the next search step is told; returns the turn's number and
 * its observations.
 */
async function runTurn(
  run: MamsRun,
  calls: SearchReply["calls"],
  room: number,
): Promise<{ turn: number; observations: Observation[] }> {
  const { ctx, figures, made, tools } = run;
  const fresh = calls.filter((c) => !made.has(describeAction(c).toLowerCase()));
  const repeats = calls.filter((c) => !fresh.includes(c));
  const batch = fresh.slice(0, room);
  if (fresh.length > batch.length)
    ctx.emit({
      type: "warning",
      code: "CALLS_CAPPED",
      message: `turn ${figures.turns + 1}: ${fresh.length - batch.length} call(s) past the cap of ${room} not run`,
    });
  figures.turns++;
  const turn = figures.turns;
  for (const c of batch) {
    made.add(describeAction(c).toLowerCase());
    if (c.tool === "read_page") made.add(`read_page ${c.url}`.toLowerCase());
  }
  ctx.emit({ type: "phase", phase: "searching", detail: `turn ${turn}: ${batch.length} calls` });
  const observations = await Promise.all(
    batch.map((c) =>
      c.tool === "read_page" && tools.fetchPage
        ? readPageText(ctx, tools, c, run.maxPageTokens)
        : runAction(ctx, tools, c, run.topK),
    ),
  );
  figures.toolCalls += batch.length;
  figures.callsByTurn.push(batch.length);
  ctx.emit({
    type: "step-end",
    step: turn,
    toolCalls: batch.length,
    failed: observations.filter((o) => !o.ok).length,
  });
  run.lastTurn = turnLines(observations, repeats, fresh.slice(batch.length));
  run.lastObserved = [...new Set(observations.flatMap((o) => o.evidence.map((e) => e.id)))];
  return { turn, observations };
}

/** The chunks in order, each through the state and report agents (chunk-update.ts), until exploration stops. */
async function updateFromChunks(run: MamsRun, chunks: readonly string[]): Promise<void> {
  for (const [i, chunk] of chunks.entries()) {
    // A long page makes many chunks: the budget is checked before each (the first always runs).
    const spent = i > 0 ? run.guard() : null;
    if (spent) stopRun(run, spent);
    if (run.stopReason) break;
    await updateFromChunk(run, chunk, i + 1, chunks.length);
  }
}

/**
 * The stop decision (with the run's figures), then the report the report agent wrote; when it
 * wrote none, the evidence gathered is listed (`EXTRACTIVE_REPORT`). No research: the run fails.
 */
function finishReport(run: MamsRun): ResearchOutcome {
  const { ctx, shown } = run;
  const reason: string = run.stopReason ?? "completed";
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: `${reason}: finishing the report`,
    details: run.figures,
  });
  ctx.emit({ type: "phase", phase: "writing", detail: reason });
  let text = run.state.report;
  let notice: string | undefined;
  if (!text.trim()) {
    const gathered = [...shown].map((id) => ctx.evidence.getEvidence(id)).filter((e) => e !== undefined);
    ctx.emit({
      type: "warning",
      code: "EXTRACTIVE_REPORT",
      message: "the run ended without a report; listing the evidence gathered",
    });
    text = gathered.length ? `## Evidence gathered\n\n${extractive(gathered, 12)}` : "";
    notice = "No report was written by the report agent; the evidence gathered is listed instead.";
  }
  requireResearch(ctx, {
    stopReason: reason,
    ...(reason === "no-research" ? { why: "the search agent finished before its first tool call" } : {}),
  });
  const outcome = finishMamsReport(ctx, {
    text,
    allowed: shown,
    language: run.language,
    stopReason: reason,
    ...(notice ? { notice } : {}),
  });
  requireResearch(ctx, { stopReason: reason, body: outcome.report.body });
  return outcome;
}
