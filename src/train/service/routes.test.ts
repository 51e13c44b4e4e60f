/**
 * The rollout service's HTTP contract without a rollout: a request that is not right is
 * answered 400 (or 422 for what the server cannot serve) naming what is wrong, before any model
 * call and with nothing created — no run, no batch, no request at the policy or judge endpoint;
 * the token is required on `/v1/*`; a foreign `Host` is refused; and the OpenAPI document,
 * served at `/openapi.json`, is the routes' own, lint-clean.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { createDossier, type Dossier } from "../../runtime/dossier.ts";
import { rolloutOpenApiDocument } from "./app.ts";
import { type RunningRolloutServer, startRolloutServer } from "./listen.ts";
import { createRolloutService } from "./rollout-service.ts";

const TOKEN = "s".repeat(40);
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  model: FakeOpenAI;
  dossier: Dossier;
  server: RunningRolloutServer;
}

/** A service whose judge (and every endpoint) is a fake server with nothing to answer. */
async function setup(): Promise<Setup> {
  const home = mkdtempSync(join(tmpdir(), "dossier-rollout-routes-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const model = await startFakeOpenAI();
  cleanups.push(() => model.close());
  const dossier = createDossier({
    env: {},
    cwd: home,
    config: {
      home,
      model: "openai-compatible:judge",
      baseUrl: model.url,
      apiKey: "sk-service",
      search: ["searxng"],
      searxngUrl: "http://127.0.0.1:9",
    },
  });
  cleanups.push(() => dossier.close());
  const service = await createRolloutService({ dossier, env: { DOSSIER_POLICY_KEY: "sk-policy" } });
  const server = await startRolloutServer({ service, home, port: 0, token: TOKEN });
  cleanups.push(() => server.close());
  return { model, dossier, server };
}

const post = (server: RunningRolloutServer, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/rollouts`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const good = (policyUrl: string) => ({
  rows: [{ id: "q1", prompt: "Which topic saw measured growth in 2025?", answer: "Topic 2" }],
  strategy: "smtl",
  group: 2,
  policy: { baseUrl: policyUrl, model: "policy", apiKeyEnv: "DOSSIER_POLICY_KEY" },
  policyVersion: 1,
  reward: { name: "smtl" },
});

type Body = ReturnType<typeof good>;
const change = (edit: (b: Body & Record<string, unknown>) => void) => (url: string) => {
  const body = structuredClone(good(url)) as Body & Record<string, unknown>;
  edit(body);
  return body;
};

/** Bad requests: [what, body, status, code, words of the message] (a corpus not found is a 404, as for a run). */
const BAD: Array<[string, (url: string) => unknown, number, string, string]> = [
  ["not JSON", () => "{rows:", 400, "INPUT_INVALID", "not valid JSON"],
  ["no rows", change((b) => delete (b as Partial<Body>).rows), 400, "INPUT_INVALID", "rows"],
  ["an empty rows list", change((b) => (b.rows = [])), 400, "INPUT_INVALID", "rows"],
  ["group 0", change((b) => (b.group = 0)), 400, "INPUT_INVALID", "group"],
  ["an unknown field", change((b) => (b.groups = 2)), 400, "INPUT_INVALID", "unknown field: groups"],
  [
    "a row id twice",
    change((b) => (b.rows = [b.rows[0]!, b.rows[0]!])),
    400,
    "INPUT_INVALID",
    "row id q1 twice",
  ],
  [
    "too many rollouts",
    change((b) =>
      Object.assign(b, {
        group: 64,
        rows: Array.from({ length: 65 }, (_, i) => ({ ...b.rows[0]!, id: `q${i}` })),
      }),
    ),
    400,
    "INPUT_INVALID",
    "at most 4096",
  ],
  ["a prompt too short", change((b) => (b.rows[0]!.prompt = "ab")), 400, "INPUT_INVALID", "rows.0.prompt"],
  [
    "an unknown strategy",
    change((b) => (b.strategy = "nope")),
    400,
    "INPUT_INVALID",
    'unknown strategy "nope"',
  ],
  [
    "a bad strategy option",
    change((b) => (b.strategyOptions = { mode: "bogus" })),
    400,
    "INPUT_INVALID",
    "mode",
  ],
  [
    "a temperature twice",
    change((b) => Object.assign(b, { sampling: { temperature: 1 }, strategyOptions: { temperature: 0.5 } })),
    400,
    "INPUT_INVALID",
    "temperature is given in both",
  ],
  [
    "local sources without a corpus",
    change((b) => Object.assign(b, { research: { sources: "local" } })),
    400,
    "INPUT_INVALID",
    'sources "local" needs documents',
  ],
  [
    "a corpus that is not indexed",
    change((b) => Object.assign(b, { research: { corpus: "nothing-here" } })),
    404,
    "NOT_FOUND",
    "nothing-here",
  ],
  [
    "an unknown reward",
    change((b) => (b.reward = { name: "nope" })),
    400,
    "INPUT_INVALID",
    'unknown reward "nope"',
  ],
  [
    "a preference reward",
    change((b) => (b.reward = { name: "rubric-generator" })),
    400,
    "INPUT_INVALID",
    "preference rows",
  ],
  [
    "rows the reward cannot score",
    change((b) => delete (b.rows[0] as { answer?: string }).answer),
    400,
    "INPUT_INVALID",
    "needs a reference answer",
  ],
  [
    "lambdas on smtl",
    change((b) => Object.assign(b.reward, { lambdas: { tool: 0.2, format: 0.2, prm: 0.2 } })),
    400,
    "INPUT_INVALID",
    "only minddr-search",
  ],
  [
    "a policy URL of another scheme",
    change((b) => (b.policy.baseUrl = "file:///etc/passwd")),
    400,
    "INPUT_INVALID",
    "http(s) URL",
  ],
  [
    "credentials in the policy URL",
    change((b) => (b.policy.baseUrl = "http://u:p@127.0.0.1:1/v1")),
    400,
    "INPUT_INVALID",
    "credentials",
  ],
  [
    "a key variable of another name",
    change((b) => (b.policy.apiKeyEnv = "OPENAI_API_KEY")),
    400,
    "INPUT_INVALID",
    "DOSSIER_POLICY_",
  ],
  ["two keys", change((b) => Object.assign(b.policy, { apiKey: "sk-x" })), 400, "INPUT_INVALID", "not both"],
  [
    "a version of another kind",
    change((b) => ((b as { policyVersion: unknown }).policyVersion = 1.5)),
    400,
    "INPUT_INVALID",
    "policyVersion",
  ],
  [
    "a key variable that is not set",
    change((b) => (b.policy.apiKeyEnv = "DOSSIER_POLICY_OTHER")),
    422,
    "PROVIDER_NOT_CONFIGURED",
    "DOSSIER_POLICY_OTHER",
  ],
];

/** The status of a GET of `/v1/rollouts/x` sent with `Host: host` (fetch cannot set it). */
function statusWithHost(server: RunningRolloutServer, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/v1/rollouts/x`, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("dossier train serve: the HTTP contract", () => {
  it("answers a bad request 400 (422) naming the field, before any model call, with nothing created", async () => {
    const { model, dossier, server } = await setup();
    for (const [what, body, status, code, words] of BAD) {
      const response = await post(server, body(model.url));
      const answer = (await response.json()) as { error?: { code: string; message: string } };
      expect({ what, status: response.status, code: answer.error?.code }).toEqual({ what, status, code });
      expect(answer.error?.message, what).toContain(words);
    }
    expect(model.requests).toEqual([]);
    expect(await dossier.runs.list()).toEqual([]);
    // The good request, for contrast, is accepted (its rollouts then fail at the silent model).
    const accepted = await post(server, good(model.url));
    expect(accepted.status).toBe(202);
    const { batch } = (await accepted.json()) as { batch: { id: string } };
    expect(
      (
        await fetch(`${server.url}/v1/rollouts/${batch.id}/cancel`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).status,
    ).toBe(202);
  });

  it("requires the token on /v1, refuses a foreign Host, and serves /health and the document without a token", async () => {
    const { server } = await setup();
    const none = await fetch(`${server.url}/v1/rollouts/x`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await post(server, "{}", { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post(server, "{}", { authorization: "" })).status).toBe(401);
    const unknown = await fetch(`${server.url}/v1/rollouts/x`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(await statusWithHost(server, "evil.example")).toBe(403);
    expect(await statusWithHost(server, `localhost:${server.port}`)).toBe(401);
    const served = await fetch(`${server.url}/openapi.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(rolloutOpenApiDocument());
  });

  it("documents every route with a stable operationId, lint-clean", async () => {
    const doc = rolloutOpenApiDocument() as {
      paths: Record<string, Record<string, { operationId?: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    const ids = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(ids.sort()).toEqual(
      [
        "GET /health getHealth",
        "GET /openapi.json getOpenApiDocument",
        "POST /v1/rollouts createRollouts",
        "GET /v1/rollouts/{id} getRollouts",
        "GET /v1/rollouts/{id}/events streamRolloutEvents",
        "GET /v1/rollouts/{id}/results getRolloutResults",
        "POST /v1/rollouts/{id}/cancel cancelRollouts",
      ].sort(),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["RolloutRequest", "RolloutBatch", "RolloutResults", "RolloutEvent"]),
    );
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: "openapi.json",
      config,
    });
    expect(problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`)).toEqual(
      [],
    );
  });
});
