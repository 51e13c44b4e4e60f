import { afterEach, describe, expect, it } from "vitest";
import { startFakeSearch } from "../../test/fake-search/index.ts";
import type { DossierEvent } from "../core/events.ts";
import { pdfUnavailable } from "../render/format-support.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project, readSse } from "./test-fixtures.ts";

let project: Project;
let server: RunningServer;
afterEach(async () => {
  await server?.close();
  await project?.close();
});

async function start(options: Partial<Parameters<typeof startServer>[0]> = {}) {
  project = await createProject();
  server = await startServer({ dossier: project.dossier, port: 0, keepAliveMs: 200, ...options });
}

const auth = () => ({ authorization: `Bearer ${server.token}` });
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers: { ...auth(), ...headers } });
const post = (path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

interface RunJson {
  run: { id: string; status: string; active: boolean; reports: Record<string, string> };
}

const events = (sse: { data: string }[]) => sse.map((e) => JSON.parse(e.data) as DossierEvent);

describe("dossier serve — runs", () => {
  it("creates an offline run, streams its events to run-end and serves its report in each format", async () => {
    await start();
    const created = await post("/v1/runs", {
      question: "How do heat pumps perform in cold climates?",
      strategy: "offline",
      corpus: "notes",
      sources: "local",
    });
    expect(created.status).toBe(201);
    const { run } = (await created.json()) as RunJson;
    expect(created.headers.get("location")).toBe(`/v1/runs/${run.id}`);

    const stream = await get(`/v1/runs/${run.id}/events`);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const sse = await readSse(stream);
    const seen = events(sse);
    expect(seen[0]!.type).toBe("run-start");
    expect(seen.at(-1)!.type).toBe("run-end");
    expect(seen.at(-1)).toMatchObject({ status: "completed" });
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(sse.map((e) => e.id)).toEqual(seen.map((e) => String(e.seq)));
    expect(sse.map((e) => e.event)).toEqual(seen.map((e) => e.type));

    const done = (await (await get(`/v1/runs/${run.id.slice(0, 18)}`)).json()) as RunJson;
    expect(done.run).toMatchObject({ id: run.id, status: "completed", active: false });
    // Every format renders from the JSON bundle; pdf where chromium is installed.
    const pdf = pdfUnavailable() === null ? ["pdf"] : [];
    expect(Object.keys(done.run.reports).sort()).toEqual(["docx", "html", "json", "md", ...pdf]);

    const md = await get(done.run.reports.md!);
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const markdown = await md.text();
    expect(markdown).toMatch(/\[1\]/);
    expect(markdown).toContain("heat-pumps.md");
    const html = await get(done.run.reports.html!);
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(html.headers.get("content-security-policy")).toContain("script-src 'none'");
    expect(await html.text()).toContain('<ol class="references">');
    const bundle = (await (await get(done.run.reports.json!)).json()) as {
      runId: string;
      report: { markdown: string };
    };
    expect(bundle.runId).toBe(run.id);
    expect(bundle.report.markdown.length).toBeGreaterThan(100);
    expect((await get(`/v1/runs/${run.id}/report/xls`)).status).toBe(400);

    const list = (await (await get("/v1/runs")).json()) as { runs: { id: string }[] };
    expect(list.runs.map((r) => r.id)).toEqual([run.id]);
    // A finished run cannot be cancelled.
    const cancel = await post(`/v1/runs/${run.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toMatchObject({ error: { code: "CONFLICT" } });
  });

  it("renders a format that was not written from the run's JSON bundle", async () => {
    await start();
    const created = await post("/v1/runs", {
      question: "How do heat pumps perform in cold climates?",
      strategy: "offline",
      corpus: "notes",
      formats: ["json"],
    });
    const { run } = (await created.json()) as RunJson;
    await readSse(await get(`/v1/runs/${run.id}/events`));
    const html = await get(`/v1/runs/${run.id}/report/html`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain("<!doctype html>");
    expect(await (await get(`/v1/runs/${run.id}/report/md`)).text()).toContain("heat-pumps.md");
  });

  it("resends nothing already seen when a client reconnects with Last-Event-ID", async () => {
    await start();
    const created = await post("/v1/runs", {
      question: "Hold this run until it is cancelled",
      strategy: "hold",
      corpus: "notes",
      strategyOptions: { phases: 4 },
    });
    expect(created.status).toBe(201);
    const { run } = (await created.json()) as RunJson;
    // The first connection reads three events and drops.
    const first = await readSse(await get(`/v1/runs/${run.id}/events`), 3);
    expect(first.map((e) => e.id)).toEqual(["1", "2", "3"]);
    // The second resumes after the last one seen; the run is cancelled while it listens.
    const second = get(`/v1/runs/${run.id}/events`, { "last-event-id": first.at(-1)!.id! }).then((r) =>
      readSse(r),
    );
    await new Promise((r) => setTimeout(r, 100));
    const cancel = await post(`/v1/runs/${run.id}/cancel`);
    expect(cancel.status).toBe(202);
    const rest = await second;
    const all = [...events(first), ...events(rest)];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ type: "run-end", status: "cancelled" });
    expect(rest[0]!.id).toBe("4");
    // A client that has seen everything gets an empty stream that ends at once.
    const none = await readSse(
      await get(`/v1/runs/${run.id}/events`, { "last-event-id": String(all.length) }),
    );
    expect(none).toEqual([]);
    const after = await readSse(await get(`/v1/runs/${run.id}/events?after=${all.length - 2}`));
    expect(after.map((e) => e.id)).toEqual([String(all.length - 1), String(all.length)]);
  });

  it("answers 429 over the run limit and accepts again once a run has ended", async () => {
    await start({ maxRuns: 1 });
    const body = { question: "Hold this run until it is cancelled", strategy: "hold", corpus: "notes" };
    const first = await post("/v1/runs", body);
    expect(first.status).toBe(201);
    const { run } = (await first.json()) as RunJson;
    expect(run).toMatchObject({ status: "running", active: true });
    const second = await post("/v1/runs", body);
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({
      error: { code: "RATE_LIMITED", message: expect.stringContaining("1 of 1") },
    });
    expect((await post("/v1/ask", { question: "Who wrote the utility report?" })).status).toBe(429);
    expect((await post(`/v1/runs/${run.id}/cancel`)).status).toBe(202);
    await readSse(await get(`/v1/runs/${run.id}/events`));
    const third = await post("/v1/runs", body);
    expect(third.status).toBe(201);
  });

  it("cancels running runs on shutdown, recorded as cancelled (resumable)", async () => {
    await start();
    const created = await post("/v1/runs", {
      question: "Hold this run until it is cancelled",
      strategy: "hold",
      corpus: "notes",
    });
    const { run } = (await created.json()) as RunJson;
    const stream = get(`/v1/runs/${run.id}/events`).then((r) => readSse(r));
    await new Promise((r) => setTimeout(r, 50));
    await server.close("server stopped (SIGTERM)");
    const record = await project.dossier.runs.get(run.id);
    expect(record.status).toBe("cancelled");
    expect(record.stopReason).toContain("server stopped");
    expect(events(await stream).at(-1)).toMatchObject({ type: "run-end", status: "cancelled" });
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });
});

describe("dossier serve — resume, search and fetch", () => {
  it("resumes a cancelled run with the same id; its event log continues", async () => {
    await start();
    const created = await post("/v1/runs", {
      question: "Hold this run until it is cancelled",
      strategy: "hold",
      corpus: "notes",
      strategyOptions: { phases: 2 },
    });
    const { run } = (await created.json()) as RunJson;
    const running = await post(`/v1/runs/${run.id}/resume`);
    expect(running.status).toBe(409);
    expect(await running.json()).toMatchObject({ error: { code: "CONFLICT" } });
    await post(`/v1/runs/${run.id}/cancel`);
    const before = events(await readSse(await get(`/v1/runs/${run.id}/events`)));
    expect(before.at(-1)).toMatchObject({ type: "run-end", status: "cancelled" });

    const resumed = await post(`/v1/runs/${run.id.slice(0, 18)}/resume`);
    expect(resumed.status).toBe(202);
    expect(((await resumed.json()) as RunJson).run).toMatchObject({ id: run.id, active: true });
    const tail = get(`/v1/runs/${run.id}/events`, { "last-event-id": String(before.length) }).then((r) =>
      readSse(r),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(`/v1/runs/${run.id}/cancel`)).status).toBe(202);
    const after = events(await tail);
    expect(after[0]).toMatchObject({ seq: before.length + 1, type: "run-resume" });
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => before.length + 1 + i));
    expect(after.at(-1)).toMatchObject({ type: "run-end", status: "cancelled" });
    expect((await post("/v1/runs/no-such-run/resume")).status).toBe(404);
  });

  it("answers a short question with POST /v1/ask", async () => {
    await start();
    const res = await post("/v1/ask", {
      question: "What is the answer?",
      strategy: "answer",
      corpus: "notes",
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({
      answer: "42",
      verified: true,
      status: "completed",
      stopReason: "answered",
    });
    expect(answer).not.toHaveProperty("research");
    expect((await project.dossier.runs.get(answer.runId as string)).strategy).toBe("answer");
    const bad = await post("/v1/ask", { question: "What is the answer?", steps: 0 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { message: expect.stringMatching(/^steps: /) } });
    // A follow-up about a run this server does not know: refused before any model call.
    expect((await post("/v1/ask", { question: "And then?", about: "no-such-run" })).status).toBe(404);
  });

  it("searches the local corpus and reads a loopback page through the gateway", async () => {
    const { createServer } = await import("node:http");
    const web = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        "<html><head><title>Trial</title></head><body><article><h1>Trial</h1><p>The field trial ran for two winters in twelve homes.</p></article></body></html>",
      );
    });
    await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
    try {
      project = await createProject({ config: { allowPrivateNetwork: true } });
      server = await startServer({ dossier: project.dossier, port: 0 });
      const search = await post("/v1/search", {
        query: "defrost energy",
        provider: "local",
        corpus: "notes",
      });
      expect(search.status).toBe(200);
      const hits = (await search.json()) as { provider: string; results: { path: string; text: string }[] };
      expect(hits.provider).toBe("local");
      expect(hits.results[0]!.path).toContain("heat-pumps.md");
      const noWeb = await post("/v1/search", { query: "defrost energy" });
      expect(noWeb.status).toBe(422);
      expect(await noWeb.json()).toMatchObject({ error: { code: "PROVIDER_NOT_CONFIGURED" } });

      const port = (web.address() as { port: number }).port;
      const page = await post("/v1/fetch", { url: `http://127.0.0.1:${port}/trial` });
      expect(page.status).toBe(200);
      expect(await page.json()).toMatchObject({
        kind: "page",
        title: "Trial",
        text: expect.stringContaining("two winters"),
      });
      const bad = await post("/v1/fetch", { url: "ftp://example.org/x" });
      expect(bad.status).toBe(400);
    } finally {
      web.close();
    }
  });

  it("searches scholarly papers with provider arxiv or openalex, each in its own format", async () => {
    const fake = await startFakeSearch({
      results: [
        {
          title: "Sparse and dense retrieval",
          url: "https://arxiv.org/abs/2401.00001v1",
          snippet: "We compare sparse and dense retrieval.",
          publishedAt: "2024-01-02T10:00:00Z",
          authors: ["Ada Lovelace", "Alan Turing"],
          doi: "10.1234/sdr",
        },
      ],
    });
    try {
      project = await createProject();
      server = await startServer({
        dossier: project.dossier,
        port: 0,
        env: { ARXIV_BASE_URL: fake.baseUrl("arxiv"), OPENALEX_BASE_URL: fake.baseUrl("openalex") },
      });
      for (const provider of ["arxiv", "openalex"] as const) {
        const response = await post("/v1/search", { query: "sparse retrieval", provider, timeRange: "year" });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { provider: string; results: Record<string, unknown>[] };
        expect(body.provider).toBe(provider);
        expect(body.results[0]).toMatchObject({
          title: "Sparse and dense retrieval",
          snippet: "We compare sparse and dense retrieval.",
          authors: ["Ada Lovelace", "Alan Turing"],
        });
        expect(fake.requestsFor(provider)).toHaveLength(1);
      }
      const local = await post("/v1/search", { query: "x y", provider: "arxiv", corpus: "notes" });
      expect(local.status).toBe(400);
      expect(await local.json()).toMatchObject({ error: { code: "INPUT_INVALID" } });
    } finally {
      await fake.close();
    }
  });
});
