/**
 * What an MCP client hears while a research run is under way: a one-line progress message for
 * the events worth reporting, and a heartbeat when nothing has been reported for a while (a
 * single model call can take minutes: a client that resets its request timeout on progress
 * then keeps waiting). Progress values rise by one per notification, as the protocol asks.
 */

import type { DossierEvent } from "../core/events.ts";
import type { ToolExtra } from "./tool-dispatch.ts";

/** Default heartbeat interval (ms): well inside the 60 s default request timeout of SDK clients. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * Pause between the last progress notification and a tool's result (ms): clients dispatch
 * notifications a microtask late, and a result read in the same chunk would drop them.
 */
export const PROGRESS_SETTLE_MS = 100;

/** A one-line progress message for the events worth reporting, else null. */
export function progressMessage(event: DossierEvent): string | null {
  switch (event.type) {
    case "run-start":
      return `started (${event.strategy}; run ${event.runId})`;
    case "phase":
      return event.detail ? `${event.phase}: ${event.detail}` : event.phase;
    case "node-start":
      return `researching: ${event.title}`;
    case "node-end":
      return `${event.status === "done" ? "done" : "failed"}: ${event.nodeId}`;
    case "section-written":
      return `wrote section: ${event.title}`;
    case "warning":
      return `warning: ${event.message}`;
    case "report-ready":
      return "report ready";
    case "plan-review":
      return `plan ready for review: ${event.plan.items.length} ${event.plan.kind}, answer by ${event.deadline}`;
    case "plan-reviewed":
      return `plan ${REVIEW_ACTIONS[event.action]}`;
    case "run-end":
      return `run ${event.status} (${event.stopReason})`;
    default:
      return null;
  }
}

const REVIEW_ACTIONS = {
  approve: "approved",
  edit: "edited and approved",
  reject: "rejected",
  timeout: "review timed out",
} as const;

/** One progress notification's fields. */
export interface ProgressUpdate {
  progress: number;
  message: string;
}

/** Options of {@link createProgressTracker}. */
export interface ProgressTrackerOptions {
  /** Sends one notification (errors are the caller's to swallow). */
  send?: (update: ProgressUpdate) => void;
  /** Heartbeat interval (ms, default 15 000); 0 turns it off. */
  heartbeatMs?: number;
  now?: () => number;
}

/** The progress of one run as reported so far. */
export interface ProgressTracker {
  /** Reads one event of the run: sends its message, if it has one. */
  event(event: DossierEvent): void;
  /** The last step's message, the steps reported and the notifications sent (heartbeats too). */
  snapshot(): { progress: number; message: string | null; steps: number; updatedAt: number | null };
  /** Stops the heartbeat. */
  stop(): void;
  /** Starts the heartbeat again (a run going on after its plan review, or waiting for it). */
  resume(): void;
}

/** Tracks a run's events into progress messages and sends them, with a heartbeat in between. */
export function createProgressTracker(options: ProgressTrackerOptions = {}): ProgressTracker {
  const now = options.now ?? Date.now;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  let progress = 0;
  let steps = 0;
  let message: string | null = null;
  let updatedAt: number | null = null;
  const started = now();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Model calls in flight: role and start time by call id. */
  const calls = new Map<string, { role: string; since: number }>();
  const seconds = (since: number) => Math.round((now() - since) / 1000);
  // The heartbeat is due `heartbeatMs` after the last notification, whatever sent it.
  const arm = () => {
    if (timer) clearTimeout(timer);
    if (stopped || heartbeatMs <= 0 || !options.send) return;
    timer = setTimeout(heartbeat, heartbeatMs);
    timer.unref?.();
  };
  const send = (text: string) => {
    progress += 1;
    options.send?.({ progress, message: text });
    arm();
  };
  function heartbeat() {
    const oldest = [...calls.values()].sort((a, b) => a.since - b.since)[0];
    send(
      oldest
        ? `working: waiting for the ${oldest.role} model (${seconds(oldest.since)} s)`
        : message
          ? `working (last: ${message}), ${seconds(updatedAt ?? started)} s since the last step`
          : `working (${seconds(started)} s)`,
    );
  }
  arm();
  return {
    event(event) {
      if (event.type === "llm-start") calls.set(event.callId, { role: event.role, since: now() });
      else if (event.type === "llm-end") calls.delete(event.callId);
      const text = progressMessage(event);
      if (text === null) return;
      steps += 1;
      message = text;
      updatedAt = now();
      send(text);
    },
    snapshot: () => ({ progress, message, steps, updatedAt }),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    resume() {
      if (!stopped) return;
      stopped = false;
      arm();
    },
  };
}

/** Sends progress notifications for `extra`'s request, when it asked for them (else undefined). */
export function progressTo(
  extra: ToolExtra,
  send: (notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message: string };
  }) => Promise<void>,
): ((update: ProgressUpdate) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (update) =>
    void send({ method: "notifications/progress", params: { progressToken: token, ...update } }).catch(
      () => {},
    );
}
