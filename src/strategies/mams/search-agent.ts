/**
 * The mams search agent's calls (step 1 of the workflow in run.ts; its prompts in prompts.ts): it
 * reads the state — no chat history — rewrites the plan and issues the turn's tool calls, or an
 * empty list to finish; once the allowance of turns or tool calls is spent it is asked for its
 * final plan only.
 */

import { NO_CALL_YET } from "../../kit/research-done.ts";
import { searchPrompt } from "./prompts.ts";
import { planAsList, type SearchReply, searchReplySchema } from "./protocol.ts";
import type { MamsRun } from "./run-state.ts";

/** Web pages found and not read yet (the newest 20), when the run may read pages. */
function unread(run: MamsRun): string[] {
  const { ctx, made } = run;
  return run.tools.available.includes("read_page")
    ? ctx.evidence
        .sources()
        .filter((s) => s.kind === "web" && s.url && !made.has(`read_page ${s.url}`.toLowerCase()))
        .slice(-20)
        .map((s) => `- ${s.title} — ${s.url}`)
    : [];
}

/** Tool calls the budget still allows this turn. */
export function callRoom(run: MamsRun): number {
  const { limits, used } = run.ctx.budget.snapshot();
  const left = limits.maxToolCalls === undefined ? run.maxCalls : limits.maxToolCalls - used.toolCalls;
  return Math.max(0, Math.min(run.maxCalls, left));
}

/** One search-agent call with `turnsLeft` turns left (0: the allowance is spent); null when it failed. */
async function askSearch(
  run: MamsRun,
  turnsLeft: number,
  callsThisTurn: number,
  note?: string,
): Promise<SearchReply | null> {
  const { ctx, state } = run;
  run.figures.searchCalls++;
  const prompt = searchPrompt(ctx.query, state, {
    turnsLeft,
    maxTurns: run.maxTurns,
    callsThisTurn,
    lastTurn: run.lastTurn,
    unread: unread(run),
    ...(note ? { note } : {}),
  });
  const before = {
    turnsLeft,
    memory: state.memory.length,
    reportChars: state.report.length,
    observations: run.lastObserved,
  };
  const reply = await run.act("SEARCH_FALLBACK", "search agent failed; finishing the report", () =>
    ctx.inScope("search", () =>
      ctx.structured({
        role: "searcher",
        schema: searchReplySchema(run.tools.available),
        system: run.system,
        prompt,
        maxOutputTokens: 1500,
      }),
    ),
  );
  if (reply) run.record(turnsLeft > 0 ? "search" : "final-plan", before, reply.value);
  return reply?.value ?? null;
}

/** The allowance is spent: the agent states its final plan; calls it still names are not run (`CALLS_CAPPED`). */
export async function askFinalPlan(run: MamsRun): Promise<void> {
  const final = await askSearch(run, 0, 0);
  if (!final) return;
  run.state.plan = planAsList(final.plan);
  if (final.calls.length)
    run.ctx.emit({
      type: "warning",
      code: "CALLS_CAPPED",
      message: `${final.calls.length} call(s) after the tool-call allowance was spent were not run`,
    });
}

/**
 * The turn's reply. Finishing before the first tool call: asked once more (`NO_CALL_YET`);
 * insisting ends the run as no research. A failed call ends the research (`search-fallback`).
 */
export async function askForCalls(
  run: MamsRun,
  turnsLeft: number,
  room: number,
): Promise<{ reply: SearchReply } | { stop: string }> {
  const { ctx } = run;
  let reply = await askSearch(run, turnsLeft, room);
  if (reply && reply.calls.length === 0 && run.figures.toolCalls === 0) {
    ctx.emit({
      type: "warning",
      code: "NO_CALL_YET",
      message: "the search agent finished before its first tool call; asked once more",
    });
    reply = await askSearch(run, turnsLeft, room, NO_CALL_YET);
    if (reply && reply.calls.length === 0) {
      ctx.emit({
        type: "decision",
        decision: "stop",
        reason: "no-research: the search agent finished twice before its first tool call",
      });
      return { stop: "no-research" };
    }
  }
  return reply ? { reply } : { stop: "search-fallback" };
}
