/**
 * A run's event stream over fetch (so the request carries `Last-Event-ID` on every
 * reconnect): the SSE parser and a loop that reconnects after a dropped connection from the
 * last event it saw, until the run ends or the caller aborts.
 */

import type { RunEvent } from "./run-state.ts";

/** One parsed SSE message. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** Incremental SSE parser: feed text, get the complete messages so far. */
export class SseParser {
  #buffer = "";
  #id: string | null = null;
  #event = "";
  #data: string[] = [];

  /** Parses `chunk`; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.#buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const nl = this.#buffer.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const line = this.#buffer.slice(0, nl);
      const width = this.#buffer.startsWith("\r\n", nl) ? 2 : 1;
      this.#buffer = this.#buffer.slice(nl + width);
      if (line === "") {
        if (this.#data.length > 0)
          out.push({ id: this.#id, event: this.#event || "message", data: this.#data.join("\n") });
        this.#event = "";
        this.#data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") this.#data.push(value);
      else if (field === "event") this.#event = value;
      else if (field === "id") this.#id = value;
    }
    return out;
  }
}

/** Options of {@link followRun}. */
export interface FollowOptions {
  runId: string;
  /** The last `seq` already applied (0 = from the start). */
  lastSeq: () => number;
  onEvent: (event: RunEvent) => void;
  /** Whether the run can still produce events (asked when a stream ends without run-end). */
  stillLive: () => Promise<boolean>;
  onConnection?: (state: "open" | "retrying" | "closed") => void;
  signal: AbortSignal;
  fetchImpl?: typeof fetch;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

/** Follows a run's events until run-end, resuming with `Last-Event-ID` after each drop. */
export async function followRun(options: FollowOptions): Promise<void> {
  const f = options.fetchImpl ?? fetch;
  let delay = 500;
  while (!options.signal.aborted) {
    let ended = false;
    try {
      const last = options.lastSeq();
      const response = await f(`/v1/runs/${encodeURIComponent(options.runId)}/events`, {
        headers: { accept: "text/event-stream", ...(last > 0 ? { "last-event-id": String(last) } : {}) },
        credentials: "same-origin",
        signal: options.signal,
      });
      if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`);
      options.onConnection?.("open");
      delay = 500;
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(value)) {
          const event = JSON.parse(message.data) as RunEvent;
          options.onEvent(event);
          if (event.type === "run-end") ended = true;
        }
      }
    } catch {
      if (options.signal.aborted) break;
    }
    if (options.signal.aborted) break;
    // A run-end is final unless the run was resumed since (its later events follow it).
    if (!(await options.stillLive().catch(() => !ended))) break;
    if (!ended) options.onConnection?.("retrying");
    await sleep(ended ? 200 : delay, options.signal);
    if (!ended) delay = Math.min(delay * 2, 8000);
  }
  options.onConnection?.("closed");
}
