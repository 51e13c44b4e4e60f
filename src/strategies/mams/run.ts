/**
 * The mams strategy (seed: query-specific rubrics + MaMs, §3.4, App. B, C.4–C.9): a
 * multi-agent Markov-state workflow. The run's whole state is ⟨memory, plan, report⟩, and every
 * prompt is rebuilt from it — there is no chat history.
 *
 * 1. Search agent (role `searcher`): reads the state, rewrites the plan (a Markdown list) and
 *    issues 1–5 tool calls that run at once, or an empty list to finish. At most `maxTurns`
 *    (default 10) tool-calling turns; once they are spent (or the tool-call budget is) its
 *    prompt says so and asks for the final plan, and no tool runs again.
 * 2. The turn's raw observation — every search result, and the text of every page read (the
 *    page itself, split into paragraph-bounded passages, each an evidence id; no reader model
 *    condenses it) — is split on paragraph boundaries into chunks of at most `chunkTokens`
 *    (default 24,000, the seed's observation window, Table 4) estimated tokens.
 * 3. For each chunk, in order, the state agent (role `state`) updates the memory and the plan
 *    (Eq. 4) and the report agent (role `writer`) integrates the chunk into the report (Eq. 5),
 *    concurrently (chunk-update.ts); past its budget (`memoryTokens`, default 16,384) the
 *    memory is rewritten whole, compressed.
 * 4. The final report goes through the shared citation pass, checks and renderers; it may
 *    cite only evidence that was shown to the report agent.
 *
 * Fallbacks, each a `warning` event: a search reply that fails ends the research
 * (`SEARCH_FALLBACK`); a failed state update keeps the memory (`STATE_FALLBACK`); a failed
 * report update keeps the report (`REPORT_FALLBACK`); calls past the per-turn cap are not run
 * (`CALLS_CAPPED`); a report update that only appends is counted (`REPORT_APPENDED`); a run
 * that ends without a report lists the evidence gathered (`EXTRACTIVE_REPORT`). At a budget
 * limit exploration stops and the report is finished from the state.
 */

import { exceededLimit } from "../../core/budget.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { guardedAction } from "../../kit/guarded-action.ts";
import { NO_CALL_YET, requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { describeAction, runAction } from "../../kit/search-actions.ts";
import { extractive } from "../../kit/section-writer.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { ResearchOutcome } from "../types.ts";
import { type ChunkRun, updateFromChunk } from "./chunk-update.ts";
import { emptyFigures } from "./figures.ts";
import { DEFAULT_PAGE_TOKENS, readPageText } from "./page-text.ts";
import { searchPrompt, searchSystem } from "./prompts.ts";
import {
  chunkObservation,
  DEFAULT_CHUNK_TOKENS,
  DEFAULT_MAX_CALLS_PER_TURN,
  DEFAULT_MAX_TURNS,
  DEFAULT_MEMORY_TOKENS,
  type MamsState,
  planAsList,
  type SearchReply,
  searchReplySchema,
} from "./protocol.ts";
import { finishMamsReport } from "./report.ts";
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
  /** Estimated tokens the memory may hold before the state agent compresses it. Default 16,384. */
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
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const maxCalls = options.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN;
  const chunkWindow = options.chunkChars ?? options.chunkTokens ?? DEFAULT_CHUNK_TOKENS;
  const chunkSize = options.chunkChars ? (t: string) => t.length : estimateTokens;
  const memoryBudget = options.memoryTokens ?? DEFAULT_MEMORY_TOKENS;
  const maxPageTokens = options.maxPageTokens ?? DEFAULT_PAGE_TOKENS;
  const topK = options.topK ?? 5;
  const { tools, language } = options;
  const guard = explorationGuard(ctx, options.explorationShare ?? 0.9);
  const state: MamsState = { memory: [], plan: "", report: "" };
  const figures = emptyFigures();
  /** Evidence ids shown to the report agent: the only ones the report may cite. */
  const shown = new Set<string>();
  const made = new Set<string>();
  let lastTurn: string[] = [];
  /** Evidence ids the last turn's calls returned (what the next search step saw, in chunks). */
  let lastObserved: string[] = [];
  let stopReason: string | null = null;
  let step = 0;

  const stop = (reason: string) => {
    stopReason ??= reason;
  };
  const record = (action: string, before: Record<string, unknown>, answer: unknown) =>
    ctx.emit({ type: "trajectory-step", step: ++step, action, state: before, answer });
  /** One model action; a budget limit stops exploration (null), cancellation rethrows. */
  const act = guardedAction(ctx, stop);
  const chunkRun: ChunkRun = { ctx, state, figures, shown, act, record, language, memoryBudget };
  /** Web pages found and not read yet (the newest 20), when the run may read pages. */
  const unread = () =>
    tools.available.includes("read_page")
      ? ctx.evidence
          .sources()
          .filter((s) => s.kind === "web" && s.url && !made.has(`read_page ${s.url}`.toLowerCase()))
          .slice(-20)
          .map((s) => `- ${s.title} — ${s.url}`)
      : [];
  /** Tool calls the budget still allows this turn. */
  const callRoom = () => {
    const { limits, used } = ctx.budget.snapshot();
    const left = limits.maxToolCalls === undefined ? maxCalls : limits.maxToolCalls - used.toolCalls;
    return Math.max(0, Math.min(maxCalls, left));
  };
  const system = searchSystem({
    tools: tools.available,
    currentDate: ctx.currentDate,
    maxTurns,
    maxCallsPerTurn: maxCalls,
  });

  /** One search-agent call with `turnsLeft` turns left (0: the allowance is spent). */
  const askSearch = async (
    turnsLeft: number,
    callsThisTurn: number,
    note?: string,
  ): Promise<SearchReply | null> => {
    figures.searchCalls++;
    const prompt = searchPrompt(ctx.query, state, {
      turnsLeft,
      maxTurns,
      callsThisTurn,
      lastTurn,
      unread: unread(),
      ...(note ? { note } : {}),
    });
    const before = {
      turnsLeft,
      memory: state.memory.length,
      reportChars: state.report.length,
      observations: lastObserved,
    };
    const reply = await act("SEARCH_FALLBACK", "search agent failed; finishing the report", () =>
      ctx.inScope("search", () =>
        ctx.structured({
          role: "searcher",
          schema: searchReplySchema(tools.available),
          system,
          prompt,
          maxOutputTokens: 1500,
        }),
      ),
    );
    if (reply) record(turnsLeft > 0 ? "search" : "final-plan", before, reply.value);
    return reply?.value ?? null;
  };

  ctx.emit({ type: "phase", phase: "researching" });
  for (;;) {
    // A spent tool-call budget spends the allowance: the agent is told and asked for its final plan.
    const budgetStop = guard();
    if (budgetStop && budgetStop !== "budget:toolCalls") {
      stop(budgetStop);
      break;
    }
    const room = callRoom();
    const turnsLeft = room === 0 ? 0 : maxTurns - figures.turns;
    if (turnsLeft <= 0) {
      // The allowance is spent: the agent states its final plan; no tool runs again.
      const final = await askSearch(0, 0);
      if (final) {
        state.plan = planAsList(final.plan);
        if (final.calls.length)
          ctx.emit({
            type: "warning",
            code: "CALLS_CAPPED",
            message: `${final.calls.length} call(s) after the tool-call allowance was spent were not run`,
          });
      }
      stop(room === 0 && figures.turns < maxTurns ? "budget:toolCalls" : "iteration-cap");
      break;
    }
    try {
      ctx.budget.startIteration();
    } catch (error) {
      const limit = exceededLimit(error);
      if (!limit) throw error;
      stop(`budget:${limit}`);
      break;
    }
    let reply = await askSearch(turnsLeft, room);
    if (reply && reply.calls.length === 0 && figures.toolCalls === 0) {
      // Finishing before the first tool call: asked once more; insisting ends the run as no research.
      ctx.emit({
        type: "warning",
        code: "NO_CALL_YET",
        message: "the search agent finished before its first tool call; asked once more",
      });
      reply = await askSearch(turnsLeft, room, NO_CALL_YET);
      if (reply && reply.calls.length === 0) {
        ctx.emit({
          type: "decision",
          decision: "stop",
          reason: "no-research: the search agent finished twice before its first tool call",
        });
        stop("no-research");
        break;
      }
    }
    if (!reply) {
      stop("search-fallback");
      break;
    }
    state.plan = planAsList(reply.plan);
    if (reply.calls.length === 0) {
      ctx.emit({ type: "decision", decision: "stop", reason: "answered: the search agent finished" });
      stop("completed");
      break;
    }
    const fresh = reply.calls.filter((c) => !made.has(describeAction(c).toLowerCase()));
    const repeats = reply.calls.filter((c) => !fresh.includes(c));
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
          ? readPageText(ctx, tools, c, maxPageTokens)
          : runAction(ctx, tools, c, topK),
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
    lastTurn = turnLines(observations, repeats, fresh.slice(batch.length));
    lastObserved = [...new Set(observations.flatMap((o) => o.evidence.map((e) => e.id)))];

    const chunks = chunkObservation(observationBlocks(ctx, observations), chunkWindow, chunkSize);
    for (const [i, chunk] of chunks.entries()) {
      // A long page makes many chunks: the budget is checked before each (the first always runs).
      const spent = i > 0 ? guard() : null;
      if (spent) stop(spent);
      if (stopReason) break;
      await updateFromChunk(chunkRun, chunk, i + 1, chunks.length);
    }
    if (stopReason) break;
    ctx.emit({
      type: "decision",
      decision: "continue",
      reason: `turn ${turn} done (${chunks.length} chunk(s))`,
    });
  }

  const reason: string = stopReason ?? "completed";
  ctx.emit({
    type: "decision",
    decision: "stop",
    reason: `${reason}: finishing the report`,
    details: figures,
  });
  ctx.emit({ type: "phase", phase: "writing", detail: reason });
  let text = state.report;
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
    language,
    stopReason: reason,
    ...(notice ? { notice } : {}),
  });
  requireResearch(ctx, { stopReason: reason, body: outcome.report.body });
  return outcome;
}
