/**
 * The queue and its workers as the runs page shows them (from `GET /v1/workers`): a summary line
 * and one row per worker with its load. Names and ids are shown as text only.
 */

/** A worker as `/v1/workers` describes it. */
export interface WorkerView {
  name: string;
  host: string;
  pid: number;
  concurrency: number;
  running: string[];
  startedAt: string;
  heartbeatAt: string;
}

/** The answer of `GET /v1/workers`. */
export interface WorkersView {
  mode: "queue" | "embedded";
  queue: {
    url: string;
    waiting: number;
    active: number;
    delayed: number;
    completed: number;
    failed: number;
  } | null;
  workers: WorkerView[];
  runs: { queued: number; running: number };
}

/** One row of the workers table. */
export interface WorkerRow {
  name: string;
  /** "1 of 2". */
  load: string;
  /** 0–1 of its slots in use. */
  ratio: number;
  /** Seconds since its heartbeat, as text ("3 s ago"). */
  seen: string;
  running: string[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The summary line: where runs execute, the queue's depth and the workers' slots in use. */
export function workersSummary(view: WorkersView): string {
  const slots = view.workers.reduce((n, w) => n + w.concurrency, 0);
  const busy = view.workers.reduce((n, w) => n + w.running.length, 0);
  if (view.mode === "embedded") {
    return `Runs execute in this server: ${busy} of ${plural(slots, "slot")} in use, ${view.runs.queued} queued.`;
  }
  const q = view.queue;
  const depth = q
    ? `${q.waiting} waiting, ${q.active} active${q.delayed ? `, ${q.delayed} to retry` : ""}`
    : "";
  const workers =
    view.workers.length === 0
      ? "no worker is running (start one with dossier worker)"
      : `${plural(view.workers.length, "worker")}, ${busy} of ${plural(slots, "slot")} in use`;
  return `Queue: ${depth}; ${workers}.`;
}

/** The rows of the workers table, by name. */
export function workerRows(view: WorkersView, nowMs: number): WorkerRow[] {
  return [...view.workers]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((w) => {
      const age = Math.max(0, Math.round((nowMs - Date.parse(w.heartbeatAt)) / 1000));
      return {
        name: w.name,
        load: `${w.running.length} of ${w.concurrency}`,
        ratio: w.concurrency > 0 ? Math.min(1, w.running.length / w.concurrency) : 0,
        seen: Number.isFinite(age) ? `${age} s ago` : "—",
        running: w.running,
      };
    });
}
