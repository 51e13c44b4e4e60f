/**
 * A run is completed only when it did its work. The runtime checks two things after the
 * strategy returned, whatever the strategy is:
 *
 * - a budget already spent before the first model call: the run did no research, whatever it
 *   wrote (`BUDGET_EXCEEDED` with the limit);
 * - tool calls that gathered no evidence: every search and page read failed or found nothing,
 *   so the report has nothing to stand on (`NO_EVIDENCE`, the failed calls counted by tool and
 *   error code in the message and `details.failures`);
 * - a strategy that returned with stop reason `no-research` (or `no-research: <why>`): it wrote
 *   a report, but by its own rules the run did no research (`NO_RESEARCH`, the why in the
 *   message).
 *
 * The run keeps its events and whatever report the strategy wrote; only its status says it
 * failed. (A run that made no tool call at all is the strategy's to judge: kit/research-done.ts.)
 */

import type { BudgetLimitName, BudgetSnapshot } from "../core/budget.ts";
import { DossierError } from "../core/errors.ts";
import type { EventInput } from "../core/events.ts";

/** The outcomes of a run's tool calls, counted from its `tool-end` events. */
export class ToolTally {
  #ok = 0;
  /** Failed calls by `tool: CODE`. */
  readonly #failed = new Map<string, number>();

  /** Counts `event` when it is a `tool-end`. */
  see(event: EventInput): void {
    if (event.type !== "tool-end") return;
    if (event.ok) {
      this.#ok++;
      return;
    }
    const key = `${event.tool}: ${event.error?.code ?? "error"}`;
    this.#failed.set(key, (this.#failed.get(key) ?? 0) + 1);
  }

  /** Calls that ended ok. */
  get ok(): number {
    return this.#ok;
  }

  /** Failed calls by `tool: CODE`, most first. */
  failures(): Record<string, number> {
    return Object.fromEntries([...this.#failed].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  }
}

/** What {@link didWorkError} looks at. */
export interface RunWork {
  /** The strategy's stop reason. */
  stopReason: string | undefined;
  budget: BudgetSnapshot;
  /** Evidence items the run holds. */
  evidence: number;
  tools: ToolTally;
}

/** The error that fails a run which returned without doing its work, or null. */
export function didWorkError(work: RunWork): DossierError | null {
  const budgetStop = /^budget:(.+)$/.exec(work.stopReason ?? "")?.[1] as BudgetLimitName | undefined;
  if (budgetStop && work.budget.used.llmCalls === 0 && spent(work.budget, budgetStop)) {
    return new DossierError(
      "BUDGET_EXCEEDED",
      `the ${budgetStop} budget was spent before the first model call: the run did no research`,
      { details: { limit: budgetStop } },
    );
  }
  const calls = work.budget.used.toolCalls;
  if (calls > 0 && work.evidence === 0) {
    const failures = work.tools.failures();
    const failed = Object.values(failures).reduce((a, b) => a + b, 0);
    const list = Object.entries(failures)
      .map(([what, n]) => `${what} ×${n}`)
      .join(", ");
    const what =
      failed === 0
        ? `its ${calls} tool call(s) found nothing`
        : failed >= calls
          ? `every one of its ${calls} tool call(s) failed (${list})`
          : `its ${calls} tool call(s) found nothing, ${failed} of them failed (${list})`;
    return new DossierError("NO_EVIDENCE", `the run gathered no evidence: ${what}`, {
      details: {
        toolCalls: calls,
        failed,
        failures,
        ...(work.stopReason ? { stopReason: work.stopReason } : {}),
      },
    });
  }
  const noResearch = /^no-research(?::\s*([\s\S]*))?$/.exec(work.stopReason ?? "");
  if (noResearch)
    return new DossierError(
      "NO_RESEARCH",
      `the run did no research${noResearch[1] ? `: ${noResearch[1]}` : ""}`,
      {
        details: { stopReason: work.stopReason, toolCalls: calls, evidence: work.evidence },
      },
    );
  return null;
}

/** True when the limit `name` is used up (not merely too small for the next call). */
function spent({ limits, used }: BudgetSnapshot, name: BudgetLimitName): boolean {
  const pairs: Record<BudgetLimitName, [number, number | undefined]> = {
    wallTime: [used.wallMs, limits.maxWallMs],
    tokens: [used.tokens, limits.maxTokens],
    cost: [used.costUsd, limits.maxCostUsd],
    toolCalls: [used.toolCalls, limits.maxToolCalls],
    iterations: [used.iterations, limits.maxIterations],
  };
  const [value, limit] = pairs[name] ?? [0, undefined];
  return limit !== undefined && value >= limit;
}
