/**
 * One model action of an agent loop whose failure must not end the run: a budget limit stops
 * exploration (the caller's `stop` gets `budget:<limit>`), any other failure becomes a warning
 * with the caller's code; either way the action yields null and the loop goes on to write.
 * Cancellation is rethrown, and so is `NO_RESEARCH` (the run did no research: nothing to write).
 */

import { exceededLimit } from "../core/budget.ts";
import { isDossierError } from "../core/errors.ts";
import type { RunContext } from "./run-context.ts";

/** Runs `fn`; null when it failed (see the module comment). */
export type GuardedAction = <T>(code: string, message: string, fn: () => Promise<T>) => Promise<T | null>;

/** The guarded action runner of one run. */
export function guardedAction(
  ctx: Pick<RunContext, "emit" | "signal">,
  stop: (reason: string) => void,
): GuardedAction {
  return async (code, message, fn) => {
    try {
      return await fn();
    } catch (error) {
      if (isDossierError(error, "CANCELLED") || isDossierError(error, "NO_RESEARCH") || ctx.signal.aborted)
        throw error;
      const limit = exceededLimit(error);
      if (limit) stop(`budget:${limit}`);
      ctx.emit({
        type: "warning",
        code: limit ? "BUDGET_EXCEEDED" : code,
        message: `${message} (${isDossierError(error) ? error.code : "error"})`,
      });
      return null;
    }
  };
}
