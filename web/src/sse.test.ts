import { describe, expect, it } from "vitest";
import type { RunEvent } from "./run-state.ts";
import { followRun, SseParser } from "./sse.ts";

describe("SSE parsing and resume", () => {
  it("parses messages split across chunks, ignores comments and keeps ids", () => {
    const p = new SseParser();
    expect(p.push(": keep-alive\n\nid: 1\nevent: pha")).toEqual([]);
    expect(p.push('se\ndata: {"a":1}\r\n\r\nid: 2\ndata: x\ndata: y\n\n')).toEqual([
      { id: "1", event: "phase", data: '{"a":1}' },
      { id: "2", event: "message", data: "x\ny" },
    ]);
  });

  it("reconnects after a drop with Last-Event-ID and stops at run-end", async () => {
    const events = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => {
        const seq = from + i;
        const type = seq === 5 ? "run-end" : "phase";
        return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ runId: "r", seq, ts: "t", type })}\n\n`;
      }).join("");
    const asked: (string | null)[] = [];
    const fetchImpl = (async (_url: string, init: RequestInit) => {
      const last = new Headers(init.headers).get("last-event-id");
      asked.push(last);
      // The first connection drops after event 3; the second starts after what was seen.
      const body = last === null ? events(1, 3) : events(Number(last) + 1, 5);
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }) as unknown as typeof fetch;
    const got: RunEvent[] = [];
    let lastSeq = 0;
    await followRun({
      runId: "r",
      lastSeq: () => lastSeq,
      onEvent: (e) => {
        got.push(e);
        lastSeq = e.seq;
      },
      // Live until its end was seen.
      stillLive: async () => lastSeq < 5,
      signal: new AbortController().signal,
      fetchImpl,
    });
    expect(asked).toEqual([null, "3"]);
    expect(got.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("stops when the stream ends and the run is no longer live (interrupted)", async () => {
    let calls = 0;
    const fetchImpl = (async () => {
      calls++;
      return new Response("", { headers: { "content-type": "text/event-stream" } });
    }) as unknown as typeof fetch;
    await followRun({
      runId: "r",
      lastSeq: () => 0,
      onEvent: () => {},
      stillLive: async () => false,
      signal: new AbortController().signal,
      fetchImpl,
    });
    expect(calls).toBe(1);
  });
});
