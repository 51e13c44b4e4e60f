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
 *    (Eq. 4): new facts are merged in — old facts are never removed, corrections rewrite a fact
 *    in place — and the plan's steps are marked done or added; once the memory is over its
 *    budget (`memoryTokens`, default 16,384) the state agent rewrites it whole, compressed. The
 *    report agent (role `writer`) integrates the chunk into the report (Eq. 5). Both read the
 *    state as it was before the chunk, so they run concurrently. Every call that rewrites state
 *    may answer with up to 16,384 tokens (the seed's maximum response length).
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

import type { z } from "zod";
import { exceededLimit } from "../../core/budget.ts";
import { sourceLocator } from "../../core/source.ts";
import { explorationGuard } from "../../kit/exploration-budget.ts";
import { guardedAction } from "../../kit/guarded-action.ts";
import type { Observation } from "../../kit/observation.ts";
import { NO_CALL_YET, requireResearch } from "../../kit/research-done.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { describeAction, runAction, type SearchAction } from "../../kit/search-actions.ts";
import { extractive } from "../../kit/section-writer.ts";
import { estimatePromptTokens, estimateTokens } from "../../llm/token-estimate.ts";
import type { ResearchOutcome } from "../types.ts";
import { DEFAULT_PAGE_TOKENS, readPageText } from "./page-text.ts";
import {
  reportPrompt,
  reportSystem,
  searchPrompt,
  searchSystem,
  statePrompt,
  stateSystem,
} from "./prompts.ts";
import {
  type CompressReply,
  chunkObservation,
  compressedMemory,
  compressReplySchema,
  DEFAULT_CHUNK_TOKENS,
  DEFAULT_MAX_CALLS_PER_TURN,
  DEFAULT_MAX_TURNS,
  DEFAULT_MEMORY_TOKENS,
  evidenceIdsIn,
  MAX_RESPONSE_TOKENS,
  type MamsState,
  mergeMemory,
  type ObservationBlock,
  onlyAppended,
  planAsList,
  renderMemory,
  reportReplySchema,
  type SearchReply,
  STATE_UPDATE_TOKENS,
  type StateReply,
  searchReplySchema,
  stateReplySchema,
} from "./protocol.ts";
import { finishMamsReport } from "./report.ts";

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

/** Figures of a mams run (in the `decision` event that ends it). */
export interface MamsFigures {
  turns: number;
  toolCalls: number;
  callsByTurn: number[];
  chunks: number;
  searchCalls: number;
  factsAdded: number;
  factsCorrected: number;
  /** Chunks whose state update changed the plan. */
  planUpdates: number;
  /** State updates that rewrote the memory compressed (it was over its budget). */
  memoryCompressions: number;
  appendOnlyUpdates: number;
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
  const figures: MamsFigures = {
    turns: 0,
    toolCalls: 0,
    callsByTurn: [],
    chunks: 0,
    searchCalls: 0,
    factsAdded: 0,
    factsCorrected: 0,
    planUpdates: 0,
    memoryCompressions: 0,
    appendOnlyUpdates: 0,
  };
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
  /** Web pages found and not read yet (the newest 20), when the run may read pages. */
  const unread = () =>
    tools.available.includes("read_page")
      ? ctx.evidence
          .sources()
          .filter((s) => s.kind === "web" && s.url && !made.has(`read_page ${s.url}`.toLowerCase()))
          .slice(-20)
          .map((s) => `- ${s.title} — ${s.url}`)
      : [];
  /**
   * Output tokens the report agent may ask for: the seed's maximum response length, less what
   * the token budget must keep for `others` (the inputs and the state agent's output).
   */
  const outputRoom = (others: number): number => {
    const { limits, used } = ctx.budget.snapshot();
    if (limits.maxTokens === undefined) return MAX_RESPONSE_TOKENS;
    return Math.max(1024, Math.min(MAX_RESPONSE_TOKENS, limits.maxTokens - used.tokens - others));
  };
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
      await processChunk(chunk, i + 1, chunks.length);
    }
    if (stopReason) break;
    ctx.emit({
      type: "decision",
      decision: "continue",
      reason: `turn ${turn} done (${chunks.length} chunk(s))`,
    });
  }

  /** The state and report agents on one chunk, concurrently, both from the state before it. */
  async function processChunk(chunk: string, index: number, of: number): Promise<void> {
    figures.chunks++;
    const before: MamsState = { memory: state.memory, plan: state.plan, report: state.report };
    const ids = evidenceIdsIn(chunk);
    for (const id of ids) shown.add(id);
    ctx.emit({ type: "phase", phase: "updating", detail: `chunk ${index} of ${of}` });
    const memoryTokens = estimateTokens(renderMemory(before.memory));
    const compress = memoryTokens > memoryBudget ? { memoryTokens, budget: memoryBudget } : undefined;
    const stateReq = {
      system: stateSystem(ctx.currentDate),
      prompt: statePrompt(ctx.query, before, chunk, index, of, compress),
    };
    const reportReq = {
      system: reportSystem(ctx.currentDate, language),
      prompt: reportPrompt(ctx.query, before, chunk, index, of),
    };
    // A compressing reply rewrites the whole memory; an ordinary one lists what is new.
    const stateCap = compress ? MAX_RESPONSE_TOKENS : STATE_UPDATE_TOKENS;
    const stateCall = <T>(schema: z.ZodType<T>) =>
      act("STATE_FALLBACK", `state update of chunk ${index} failed; memory and plan kept`, () =>
        ctx.inScope("state", () =>
          ctx.structured({ role: "state", schema, ...stateReq, maxOutputTokens: stateCap }),
        ),
      );
    // The report agent asks first: under a tight token budget the report is what the run
    // delivers, but it leaves the concurrent state update the room it needs.
    const reportCap = outputRoom(
      estimatePromptTokens([reportReq.system, reportReq.prompt]) +
        estimatePromptTokens([stateReq.system, stateReq.prompt]) +
        stateCap,
    );
    const [reportReply, stateReply] = await Promise.all([
      act("REPORT_FALLBACK", `report update of chunk ${index} failed; report kept`, () =>
        ctx.inScope("report", () =>
          ctx.structured({
            role: "writer",
            schema: reportReplySchema,
            ...reportReq,
            maxOutputTokens: reportCap,
          }),
        ),
      ),
      compress ? stateCall(compressReplySchema) : stateCall(stateReplySchema),
    ]);
    if (stateReply) {
      const value = stateReply.value as StateReply | CompressReply;
      const planBefore = before.plan;
      if (value.plan?.trim()) state.plan = planAsList(value.plan);
      const planChanged = state.plan !== planBefore;
      if (planChanged) figures.planUpdates++;
      if ("memory" in value) {
        state.memory = compressedMemory(value);
        figures.memoryCompressions++;
        const after = estimateTokens(renderMemory(state.memory));
        ctx.emit({
          type: "warning",
          code: after > memoryBudget ? "MEMORY_OVER_BUDGET" : "MEMORY_COMPRESSED",
          message: `chunk ${index}: memory compressed from ${before.memory.length} facts (~${memoryTokens} tokens) to ${state.memory.length} (~${after}); budget ${memoryBudget}`,
        });
        record("state", { chunk: index, of, evidence: ids, compress: true }, { ...value, planChanged });
      } else {
        const merged = mergeMemory(before.memory, value);
        state.memory = merged.memory;
        figures.factsAdded += merged.added;
        figures.factsCorrected += merged.corrected;
        record(
          "state",
          { chunk: index, of, evidence: ids },
          { ...value, added: merged.added, corrected: merged.corrected, planChanged },
        );
      }
    }
    if (reportReply?.value.report.trim()) {
      const next = reportReply.value.report.trim();
      if (onlyAppended(before.report, next)) {
        figures.appendOnlyUpdates++;
        ctx.emit({
          type: "warning",
          code: "REPORT_APPENDED",
          message: `chunk ${index}: the report update only appended to the report`,
        });
      }
      state.report = next;
      record("report", { chunk: index, of, evidence: ids }, { report: next });
    }
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

/** The raw observation of a turn as blocks: one per passage, headed by its evidence id. */
function observationBlocks(ctx: RunContext, observations: readonly Observation[]): ObservationBlock[] {
  return observations.flatMap((o) =>
    o.evidence.map((e) => {
      const source = ctx.evidence.getSource(e.sourceId);
      const where = source ? ` ${source.title} — ${sourceLocator(source)}` : "";
      return { header: `[${e.id}]${where} (from ${o.action})`, text: e.text.trim() };
    }),
  );
}

/** What the previous turn did, as the next search prompt shows it. */
function turnLines(
  observations: readonly Observation[],
  repeats: readonly SearchAction[],
  capped: readonly SearchAction[],
): string[] {
  return [
    ...observations.map((o) =>
      o.ok
        ? `- ${o.action} → ${o.evidence.length} passage(s)${o.evidence.length ? ` (${o.evidence[0]!.id}…)` : ""}`
        : `- ${o.action} → FAILED (${o.error?.code ?? "error"})`,
    ),
    ...repeats.map((c) => `- ${describeAction(c)} → not run: made in an earlier turn`),
    ...capped.map((c) => `- ${describeAction(c)} → not run: over the per-turn cap`),
  ];
}
