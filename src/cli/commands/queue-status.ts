/**
 * The run queue as a terminal shows it (`dossier worker --status`, `dossier runs list`): jobs by
 * state, then each live worker with its load (runs under way of the runs it takes at once) and
 * the age of its heartbeat. Names and ids come from Redis: they are made terminal-safe.
 */

import { terminalLine } from "../../core/terminal-text.ts";
import type { QueueStatus } from "../../queue/run-queue.ts";

/** Lines describing `status` of the queue at `display` (a URL without its password). */
export function queueStatusText(display: string, status: QueueStatus, nowMs = Date.now()): string {
  const jobs = `${status.waiting} waiting, ${status.active} active, ${status.delayed} delayed, ${status.completed} completed, ${status.failed} failed`;
  const lines = [`queue ${display}: ${jobs}`];
  if (status.workers.length === 0) lines.push("workers: none (start one with dossier worker)");
  else {
    const held = status.workers.reduce((n, w) => n + w.running.length, 0);
    const slots = status.workers.reduce((n, w) => n + w.concurrency, 0);
    lines.push(`workers: ${status.workers.length}, ${held} of ${slots} run slots in use`);
    for (const worker of status.workers) {
      const age = Math.max(0, Math.round((nowMs - Date.parse(worker.heartbeatAt)) / 1000));
      const runs = worker.running.length ? ` (${worker.running.join(", ")})` : "";
      lines.push(
        `  ${worker.name}  ${worker.running.length}/${worker.concurrency} runs${runs}  heartbeat ${age} s ago`,
      );
    }
  }
  return lines.map(terminalLine).join("\n");
}

/**
 * The run queue at `url` as {@link queueStatusText} shows it; a queue that does not answer within
 * `timeoutMs` is a STORE_ERROR naming it.
 */
export async function readQueueStatus(url: string, timeoutMs = 3_000): Promise<string> {
  const { openRunQueue } = await import("../../queue/run-queue.ts");
  const queue = openRunQueue({ url, readyTimeoutMs: timeoutMs });
  try {
    await queue.ready();
    return queueStatusText(queue.target.display, await queue.status());
  } finally {
    await queue.close();
  }
}
