import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import type { DossierEvent } from "../core/events.ts";
import { streamAsk } from "./ask-stream.ts";
import { errorResponse } from "./errors.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project;
let server: RunningServer;
afterEach(async () => {
  await server?.close();
  await project?.close();
});

async function start() {
  project = await createProject();
  server = await startServer({ dossier: project.dossier, port: 0, keepAliveMs: 100 });
}

const headers = (accept: string) => ({
  authorization: `Bearer ${server.token}`,
  "content-type": "application/json",
  accept,
});
const ask = (body: unknown, accept = "text/event-stream") =>
  fetch(`${server.url}/v1/ask`, { method: "POST", headers: headers(accept), body: JSON.stringify(body) });

/** The blocks of an SSE body as they arrive, comments included; `until` ends the reading. */
async function* blocks(response: Response): AsyncGenerator<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
        yield buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
const field = (block: string, name: string) =>
  block
    .split("\n")
    .filter((l) => l.startsWith(`${name}:`))
    .map((l) => l.slice(name.length + 1).replace(/^ /, ""))
    .join("\n");

describe("POST /v1/ask as an event stream", () => {
  it("streams the answering run's events, then the answer the plain request gives", async () => {
    await start();
    const res = await ask({ question: "What is the answer?", strategy: "answer", corpus: "notes" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const seen: { event: string; data: string }[] = [];
    for await (const b of blocks(res))
      if (!b.startsWith(":")) seen.push({ event: field(b, "event"), data: field(b, "data") });
    const last = seen.at(-1)!;
    expect(last.event).toBe("answer");
    const events = seen
      .slice(0, -1)
      .map((e) => ({ event: e.event, value: JSON.parse(e.data) as DossierEvent }));
    expect(events[0]!.value.type).toBe("run-start");
    expect(events.at(-1)!.value).toMatchObject({ type: "run-end", status: "completed" });
    for (const e of events) expect(e.event).toBe(e.value.type);
    expect(events.some((e) => e.value.type === "answer-ready")).toBe(true);
    const answer = JSON.parse(last.data) as Record<string, unknown>;
    expect(answer).toMatchObject({
      answer: "42",
      verified: true,
      status: "completed",
      stopReason: "answered",
    });
    expect(answer.runId).toBe(events[0]!.value.runId);
    expect(answer).not.toHaveProperty("research");
    // The same question without the header: the same answer as one JSON body.
    const plain = await ask(
      { question: "What is the answer?", strategy: "answer", corpus: "notes" },
      "application/json",
    );
    expect(plain.headers.get("content-type")).toContain("application/json");
    expect(await plain.json()).toMatchObject({ answer: "42", verified: true });
  });

  it("answers a request refused before the run starts as an ordinary error, not a stream", async () => {
    await start();
    const bad = await ask({ question: "What is the answer?", steps: 0 });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("application/json");
    expect(await bad.json()).toMatchObject({
      error: { code: "INPUT_INVALID", message: expect.stringMatching(/^steps: /) },
    });
    const unknown = await ask({ question: "And then?", about: "no-such-run" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
  });

  it("keeps a quiet stream open with comments; a run cancelled meanwhile ends with its answer saying so", async () => {
    await start();
    const res = await ask({ question: "Hold this question", strategy: "hold", corpus: "notes" });
    expect(res.status).toBe(200);
    const kinds: string[] = [];
    let runId = "";
    let last = "";
    for await (const b of blocks(res)) {
      if (b.startsWith(":")) {
        kinds.push("comment");
        // Once the run is quiet (its three phases sent), stop it from outside.
        if (kinds.filter((k) => k === "comment").length === 2) {
          const cancel = await fetch(`${server.url}/v1/runs/${runId}/cancel`, {
            method: "POST",
            headers: headers("application/json"),
          });
          expect(cancel.status).toBe(202);
        }
        continue;
      }
      const event = field(b, "event");
      kinds.push(event);
      if (event === "run-start") runId = (JSON.parse(field(b, "data")) as { runId: string }).runId;
      last = b;
    }
    expect(kinds.filter((k) => k === "phase").length).toBeGreaterThanOrEqual(3);
    expect(kinds).toContain("comment");
    expect(kinds.indexOf("comment")).toBeGreaterThan(kinds.lastIndexOf("phase"));
    expect(kinds.at(-2)).toBe("run-end");
    // The run ended cancelled: its answer says so, as the plain request's would.
    expect(field(last, "event")).toBe("answer");
    expect(JSON.parse(field(last, "data"))).toMatchObject({ runId, status: "cancelled" });
  });
});

describe("streamAsk", () => {
  const app = (answer: Parameters<typeof streamAsk>[1]) => {
    const hono = new Hono();
    hono.onError((error, c) => errorResponse(c, error));
    hono.post("/ask", (c) => streamAsk(c, answer, 50));
    return hono;
  };
  const phase = { type: "phase", phase: "searching" } as unknown as DossierEvent;

  it("ends with an error event when the answer fails after the run has spoken", async () => {
    const res = await app(async (onEvent) => {
      onEvent(phase);
      onEvent({ type: "llm-call" } as unknown as DossierEvent);
      await new Promise((r) => setTimeout(r, 120));
      throw new DossierError("PROVIDER_ERROR", "the model went away <script>");
    }).request("/ask", { method: "POST" });
    expect(res.status).toBe(200);
    const all: string[] = [];
    for await (const b of blocks(res)) all.push(b);
    // The phase, at least one comment while waiting, no recorded model call, then the error.
    expect(all[0]).toBe(`event: phase\ndata: ${JSON.stringify(phase)}`);
    expect(all.slice(1, -1).length).toBeGreaterThan(0);
    for (const b of all.slice(1, -1)) expect(b).toBe(": keep-alive");
    expect(field(all.at(-1)!, "event")).toBe("error");
    expect(JSON.parse(field(all.at(-1)!, "data"))).toEqual({
      error: { code: "PROVIDER_ERROR", message: "the model went away <script>" },
    });
  });

  it("throws a failure that comes before any event, so the app answers it with its status", async () => {
    const res = await app(async () => {
      throw new DossierError("RATE_LIMITED", "1 of 1 runs");
    }).request("/ask", { method: "POST" });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ error: { code: "RATE_LIMITED", message: "1 of 1 runs" } });
  });

  it("sends every event made before the answer, in order, then the answer", async () => {
    const res = await app(async (onEvent) => {
      for (let i = 1; i <= 5; i++) onEvent({ ...phase, seq: i } as unknown as DossierEvent);
      return { answer: "yes" };
    }).request("/ask", { method: "POST" });
    const all: string[] = [];
    for await (const b of blocks(res)) all.push(b);
    expect(all.map((b) => field(b, "event"))).toEqual([
      "phase",
      "phase",
      "phase",
      "phase",
      "phase",
      "answer",
    ]);
    expect(all.slice(0, 5).map((b) => (JSON.parse(field(b, "data")) as { seq: number }).seq)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    expect(JSON.parse(field(all.at(-1)!, "data"))).toEqual({ answer: "yes" });
  });
});
