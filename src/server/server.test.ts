import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_FILE } from "./auth.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project;
let server: RunningServer;
afterEach(async () => {
  await server?.close();
  await project?.close();
});

async function start(options: Partial<Parameters<typeof startServer>[0]> = {}) {
  project = await createProject();
  server = await startServer({ dossier: project.dossier, port: 0, ...options });
  return server;
}

const post = (path: string, body: unknown, token: string | null, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("dossier serve — auth", () => {
  it("binds to loopback, generates a token once (mode 0600) and answers 401 without it", async () => {
    await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.tokenCreated).toBe(true);
    expect(statSync(join(project.home, TOKEN_FILE)).mode & 0o777).toBe(0o600);

    const none = await fetch(`${server.url}/v1/runs`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(await none.json()).toMatchObject({
      error: { code: "UNAUTHORIZED", message: expect.stringContaining("Bearer") },
    });
    const wrong = await fetch(`${server.url}/v1/runs`, {
      headers: { authorization: `Bearer ${server.token}x` },
    });
    expect(wrong.status).toBe(401);
    expect((await post("/mcp", {}, null)).status).toBe(401);
    const ok = await fetch(`${server.url}/v1/runs`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ runs: [] });
    // Liveness and the API description need no token.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);

    // A second start reuses the kept token and does not show it again.
    const first = server.token;
    await server.close();
    server = await startServer({ dossier: project.dossier, port: 0 });
    expect(server.tokenCreated).toBe(false);
    expect(server.token).toBe(first);
  });
});

describe("dossier serve — request bodies", () => {
  it("answers 400 with a message naming the field", async () => {
    await start();
    const t = server.token;
    const cases: [unknown, RegExp][] = [
      [{}, /^question: /],
      [{ question: "ok?", strategy: "Not A Name" }, /^strategy: expected a strategy name/],
      [{ question: "What limits cycle life?", budget: { maxTokens: -5 } }, /^budget\.maxTokens: /],
      [{ question: "What limits cycle life?", formats: ["epub"] }, /^formats\.0: /],
      [{ question: "What limits cycle life?", colour: "red" }, /^unknown field: colour$/],
      [
        { question: "What limits cycle life?", currentDate: "31/03/2026" },
        /^currentDate: expected YYYY-MM-DD/,
      ],
      ["{not json", /not valid JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await post("/v1/runs", body, t);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe("INPUT_INVALID");
      expect(json.error.message).toMatch(message);
    }
    const text = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${t}`, "content-type": "text/plain" },
      body: "query",
    });
    expect(text.status).toBe(400);
    // A request the configuration cannot serve is refused before anything runs.
    const noModel = await post("/v1/runs", { question: "What limits sodium-ion cycle life?" }, t);
    expect(noModel.status).toBe(422);
    expect(await noModel.json()).toMatchObject({ error: { code: "MODEL_NOT_CONFIGURED" } });
    const unknown = await fetch(`${server.url}/v1/runs/nope`, { headers: { authorization: `Bearer ${t}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
  });

  it("answers 413 for a body over the limit, with or without a Content-Length", async () => {
    await start({ maxBodyBytes: 4096 });
    const big = { question: "x".repeat(5000) };
    const res = await post("/v1/runs", big, server.token);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: { code: "TOO_LARGE", message: expect.stringContaining("4096") },
    });
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode("y".repeat(1000)));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });
});

interface OpenApiDoc {
  openapi: string;
  info: { title: string };
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<
      string,
      {
        type?: string;
        required?: string[];
        additionalProperties?: unknown;
        properties: Record<string, unknown>;
      }
    >;
  };
  paths: Record<
    string,
    Record<string, { responses?: Record<string, unknown>; parameters?: { in: string; name: string }[] }>
  >;
}

describe("dossier serve — OpenAPI", () => {
  it("serves an OpenAPI 3.1 document whose references all resolve and whose bodies match the validators", async () => {
    await start();
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDoc;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("Dossier API");
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: "http", scheme: "bearer" });
    // Every $ref points at a component that exists.
    const refs: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) {
          if (k === "$ref") refs.push(v as string);
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split("/").at(-1)!], ref).toBeDefined();
    }
    // Every operation has responses; every path parameter is declared.
    const methods = ["get", "post", "put", "delete", "patch"];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(methods).toContain(method);
        expect(Object.keys(op.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
        const declared = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
        const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        expect(declared.sort(), `${method} ${path}`).toEqual(inPath.sort());
      }
    }
    // The documented body is the one that is enforced.
    const body = doc.components.schemas.CreateRunBody!;
    expect(body.type).toBe("object");
    expect(body.required).toEqual(["question"]);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(body.properties).sort()).toEqual(
      [
        "budget",
        "corpus",
        "currentDate",
        "formats",
        "language",
        "question",
        "recordCalls",
        "reviewPlan",
        "reviewTimeoutMinutes",
        "sourceFilter",
        "sources",
        "strategy",
        "strategyOptions",
        "verify",
        "webhooks",
      ].sort(),
    );
    for (const p of [
      "/v1/runs",
      "/v1/runs/{id}/events",
      "/v1/runs/{id}/report/{format}",
      "/v1/ask",
      "/v1/search",
      "/v1/fetch",
    ])
      expect(doc.paths[p], p).toBeDefined();
  });
});
