/**
 * The rollout service end to end, on loopback: a real HTTP server over the research world
 * (search and pages), a fake OpenAI-compatible policy server driven by the research script that
 * answers with token ids and log-probs like vLLM, and the rewards' judge behind the service's own
 * configured model (another fake server). A trainer posts 2 rows × group 3 with `tokens: true`,
 * follows the batch's event stream to its end and reads the results: every rollout ran with the
 * policy's key at the policy endpoint, is recorded, rewarded by the judge, has its group's GRPO
 * advantage and its token records (ids that decode to the completions, the mask on exactly the
 * model's tokens, one log-prob per model token); a later, newer version makes the batch
 * off-policy, and a stale version with `rejectStale` is refused with nothing created.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  BYTE_SPECIALS,
  BYTE_TOKENIZER,
  byteDecode,
  type FakeOpenAI,
  fakeLogprob,
  type Reply,
  startFakeOpenAI,
} from "../../../test/fake-openai/index.ts";
import type { ChatBody, ScriptRole } from "../../../test/research/model-script.ts";
import { userText } from "../../../test/research/replies.ts";
import { SMTL_MARKERS, smtlStepAnswer } from "../../../test/research/smtl-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { createDossier, type Dossier } from "../../runtime/dossier.ts";
import { readSse } from "../../server/test-fixtures.ts";
import { grpoAdvantages } from "../advantages/grpo.ts";
import { batchEventSchema } from "./batch-events.ts";
import { type BatchResults, batchResultsSchema } from "./batch-view.ts";
import { type RunningRolloutServer, startRolloutServer } from "./listen.ts";
import { createRolloutService } from "./rollout-service.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TOKEN = "t".repeat(40);
const ROWS = [
  { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
  { id: "q2", prompt: "Which topic had 12 percent growth in the annual survey?", answer: "Topic 2" },
];

/**
 * The policy answers a wrong topic in the rollouts whose sampling seed is odd (q1#2, q2#0 and
 * q2#2 with the base seed 0), so the groups' rewards differ.
 */
function wrongOnOddSeeds(role: ScriptRole, body: ChatBody): Reply | undefined {
  const seed = (body as ChatBody & { seed?: number }).seed ?? 0;
  if (role !== "smtl-step" || seed % 2 === 0) return undefined;
  const reply = smtlStepAnswer(userText(body));
  return reply.kind === "text" && reply.text.includes('"answer"')
    ? { ...reply, text: reply.text.replace(/Topic \d+/, "Topic 99") }
    : undefined;
}

interface Setup {
  world: ResearchWorld;
  /** The policy endpoint: answers like vLLM asked for token ids and log-probs. */
  policy: FakeOpenAI;
  dossier: Dossier;
  server: RunningRolloutServer;
}

async function setup(): Promise<Setup> {
  const world = await startResearchWorld({
    // Six rollouts of the first batch and one of the second.
    expectCalls: { "smtl-plan": 7, "smtl-step": 14, reader: [0, 7], "answer-judge": [2, 7] },
    override: wrongOnOddSeeds,
  });
  cleanups.push(() => world.close());
  // The policy endpoint is a server of its own, answering with token ids like vLLM; the
  // service's configured model (the world's server) is the rewards' judge only.
  const policy = await startFakeOpenAI({
    handler: (request) => world.script.handler(request),
    tokens: { tokenizer: BYTE_TOKENIZER },
  });
  cleanups.push(() => policy.close());
  const dossier = createDossier({ env: {}, cwd: world.home, config: world.config });
  cleanups.push(() => dossier.close());
  const service = await createRolloutService({
    dossier,
    env: { DOSSIER_POLICY_KEY: "sk-policy" },
    concurrency: 3,
  });
  const server = await startRolloutServer({ service, home: world.home, port: 0, token: TOKEN });
  cleanups.push(() => server.close());
  return { world, policy, dossier, server };
}

const call = (server: RunningRolloutServer, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const request = (policyUrl: string, policyVersion: number | string, extra: Record<string, unknown> = {}) => ({
  rows: ROWS,
  strategy: "smtl",
  group: 3,
  research: { currentDate: "2026-03-01" },
  policy: { baseUrl: policyUrl, model: "fake-model", apiKeyEnv: "DOSSIER_POLICY_KEY" },
  policyVersion,
  reward: { name: "smtl" },
  ...extra,
});

describe("dossier train serve: a batch of group rollouts over HTTP", () => {
  it("runs 2 rows × 3 with the policy, streams every rollout and group, and answers rewards and advantages", async () => {
    const { world, policy, dossier, server } = await setup();
    const posted = await call(server, "/v1/rollouts", request(policy.url, 1, { tokens: true }));
    expect(posted.status).toBe(202);
    const { batch } = (await posted.json()) as { batch: { id: string; total: number; status: string } };
    expect(posted.headers.get("location")).toBe(`/v1/rollouts/${batch.id}`);
    expect(batch).toMatchObject({ total: 6, status: "running" });

    const stream = await call(server, `/v1/rollouts/${batch.id}/events`);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const events = (await readSse(stream)).map((e) => {
      const event = batchEventSchema.parse(JSON.parse(e.data));
      expect(e.event).toBe(event.type);
      expect(e.id).toBe(String(event.seq));
      return event;
    });
    // The protocol: contiguous seqs; per rollout one start before its one end; per group one
    // scoring after its three ends; the batch's end last.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ type: "batch-end", status: "completed", counts: { completed: 6 } });
    const at = (type: string, key: string) =>
      events.findIndex((e) => e.type === type && "key" in e && e.key === key);
    const keys = ROWS.flatMap((r) => [0, 1, 2].map((i) => `${r.id}#${i}`));
    for (const key of keys) {
      expect(events.filter((e) => e.type === "rollout-started" && e.key === key)).toHaveLength(1);
      expect(events.filter((e) => e.type === "rollout-ended" && e.key === key)).toHaveLength(1);
      expect(at("rollout-started", key)).toBeLessThan(at("rollout-ended", key));
    }
    for (const row of ROWS) {
      const scored = events.findIndex((e) => e.type === "group-scored" && e.groupId === row.id);
      expect(events.filter((e) => e.type === "group-scored" && e.groupId === row.id)).toHaveLength(1);
      for (const i of [0, 1, 2]) expect(at("rollout-ended", `${row.id}#${i}`)).toBeLessThan(scored);
    }

    const results = batchResultsSchema.parse(
      await (await call(server, `/v1/rollouts/${batch.id}/results`)).json(),
    );
    expect(results.rollouts.map((r) => r.key)).toEqual(keys);
    for (const row of ROWS) {
      const group = results.rollouts.filter((r) => r.groupId === row.id);
      expect(group.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
      const rewards = group.map((r) => r.reward!);
      for (const r of group) {
        expect(r.offPolicy).toBe(false);
        expect(r.policyVersion).toBe(1);
        expect(r.rewardComponents).toEqual({ correct: r.reward, formatValid: 1 });
        expect(r.calls).toBeGreaterThan(1);
        // The reward is the judge's verdict on this rollout's own answer.
        expect(r.reward).toBe(r.answer?.includes(row.answer) ? 1 : 0);
      }
      expect(group.map((r) => r.advantage)).toEqual(grpoAdvantages(rewards));
      expect(new Set(rewards).size).toBe(2);
      expect(results.groups.find((g) => g.groupId === row.id)).toMatchObject({ status: "scored", rewards });
    }
    // Every run is a recorded rollout of its group with a seed of its own.
    const seeds = new Set<number>();
    for (const r of results.rollouts) {
      const record = await dossier.runs.get(r.runId!);
      expect(record.options).toMatchObject({
        recordCalls: true,
        rollout: { questionId: r.questionId, index: r.groupIndex },
      });
      seeds.add((record.options as { seed: number }).seed);
    }
    expect(seeds.size).toBe(6);
    // The policy endpoint answered every rollout call, with the policy's key, and no judge call;
    // the judge's server answered the judge calls only.
    const chat = (server: FakeOpenAI) => server.requests.filter((r) => r.path === "/v1/chat/completions");
    const system = (r: { body: unknown }) =>
      JSON.stringify((r.body as { messages: { role: string; content: unknown }[] }).messages[0]?.content);
    expect(chat(policy).length).toBe(results.rollouts.reduce((n, r) => n + r.calls, 0));
    for (const r of chat(policy)) {
      expect(r.headers.authorization).toBe("Bearer sk-policy");
      expect(system(r)).not.toContain(SMTL_MARKERS.judge);
    }
    expect(chat(world.model).length).toBeGreaterThan(0);
    for (const r of chat(world.model)) expect(system(r)).toContain(SMTL_MARKERS.judge);
    await expectTokenRecords(dossier, results);

    // A newer version makes this batch off-policy; a stale version is refused with rejectStale.
    const newer = await call(
      server,
      "/v1/rollouts",
      request(world.model.url, 2, { rows: [ROWS[0]], group: 1 }),
    );
    expect(newer.status).toBe(202);
    const { batch: second } = (await newer.json()) as { batch: { id: string } };
    const after = batchResultsSchema.parse(
      await (await call(server, `/v1/rollouts/${batch.id}/results`)).json(),
    );
    expect(after.batch).toMatchObject({ offPolicy: true, policyVersion: 1, latestPolicyVersion: 2 });
    expect(after.rollouts.every((r) => r.offPolicy)).toBe(true);
    const secondEvents = await readSse(await call(server, `/v1/rollouts/${second.id}/events`));
    expect(secondEvents.at(-1)?.event).toBe("batch-end");
    const runsBefore = (await dossier.runs.list({ limit: 1000 })).length;
    const stale = await call(server, "/v1/rollouts", request(policy.url, 1, { rejectStale: true }));
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({
      error: { code: "CONFLICT", message: expect.stringContaining("older") },
    });
    expect((await dossier.runs.list({ limit: 1000 })).length).toBe(runsBefore);
  }, 120_000);
});

/**
 * The token records of every rollout: the server's ids; each turn's span of `response_ids`
 * decodes to exactly the call's completion (then the stop token), the mask is 1 on exactly the
 * turns' tokens, and each model token has its sampler's log-prob; the rollout's reward, advantage
 * and policy version on every record.
 */
async function expectTokenRecords(dossier: Dossier, results: BatchResults) {
  for (const r of results.rollouts) {
    expect(r.tokenSkips).toEqual([]);
    expect(r.tokens!.length).toBeGreaterThan(0);
    const completions = new Map(
      (await dossier.runs.events(r.runId!))
        .filter((e) => e.type === "llm-call")
        .map((e) => [(e as { callId: string }).callId, (e as { completion: string }).completion]),
    );
    const turns = r.tokens!.flatMap((t) => t.call_ids);
    expect(new Set(turns)).toEqual(new Set(completions.keys()));
    for (const t of r.tokens!) {
      expect(t).toMatchObject({
        run_id: r.runId,
        group_id: r.groupId,
        group_index: r.groupIndex,
        policy_version: "1",
        token_source: "server",
        reward: r.reward,
        advantage: r.advantage,
      });
      const inside = new Set<number>();
      t.completion_spans.forEach(([start, end], turn) => {
        const ids = t.response_ids.slice(start, end);
        expect(ids.at(-1)).toBe(BYTE_SPECIALS["<|im_end|>"]);
        expect(byteDecode(ids.slice(0, -1))).toBe(completions.get(t.call_ids[turn]!));
        ids.forEach((id, k) => {
          inside.add(start + k);
          expect(t.response_logprobs![start + k]).toBe(fakeLogprob(id, k));
        });
      });
      expect(t.response_mask).toEqual(t.response_ids.map((_, i) => (inside.has(i) ? 1 : 0)));
    }
  }
}
