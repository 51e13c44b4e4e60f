/**
 * Waits for limiter slots, told to the call they delay: a model call's request waits for a slot
 * of its provider's shared limiter inside the AI SDK (runtime/limited-models.ts), where the run's
 * events are out of reach; the LLM client runs the request within {@link reportingSlotWaits},
 * and the limiter tells it each wait with {@link reportSlotWait} (its llm-end records them as
 * `queueMs`, as the tool gateway's tool-end does for its own queue).
 */

import { AsyncLocalStorage } from "node:async_hooks";

/** Receives the waits of the code it runs. */
export type SlotWaitSink = (limiter: string, waitMs: number) => void;

const sinks = new AsyncLocalStorage<SlotWaitSink>();

/** Runs `fn`, telling `sink` every wait for a limiter slot inside it. */
export function reportingSlotWaits<T>(sink: SlotWaitSink, fn: () => T): T {
  return sinks.run(sink, fn);
}

/** Tells the running call's sink, if any, that it waited `waitMs` for a slot of `limiter`. */
export function reportSlotWait(limiter: string, waitMs: number): void {
  sinks.getStore()?.(limiter, waitMs);
}
