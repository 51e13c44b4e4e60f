/**
 * Token-level rollouts end to end: a loopback vLLM-style server (the fake OpenAI server
 * answering with `prompt_token_ids`, `token_ids` and per-token log-probs of a byte tokenizer)
 * drives smtl's native protocol and warp's native protocol through `runRollouts` with
 * `recordTokens`; the `tokens` export's `response_ids` decode back to exactly the model's
 * completions and the observations between them, the mask covers exactly the model tokens, and
 * one log-prob per model token is the server's. smtl's conversation is one trajectory per
 * rollout (a re-sampled malformed reply standing alone with loss 0); warp's rebuilt prompts are
 * one (state, action) call each; no call of either was constrained.
 */

import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  BYTE_TOKENIZER,
  byteDecode,
  type FakeOpenAI,
  fakeLogprob,
  type RecordedRequest,
  type Reply,
  startFakeOpenAI,
} from "../../../test/fake-openai/index.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { cleanup, notesProject } from "../../../test/warp/kit.ts";
import { bibkeys, cursorOf, expandable, nativeRole, tagged } from "../../../test/warp/native-kit.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { NATIVE_MARKER, SUMMARY_NUDGE, TRUNCATED_NOTE } from "../../strategies/smtl/native-prompts.ts";
import { exportRollouts } from "../export/export-rollouts.ts";
import type { RecordedCall } from "../recorded-call.ts";
import { readRolloutRuns } from "../rollouts/rollout-dir.ts";
import { runRollouts } from "../rollouts/run-rollouts.ts";
import { type TokenRecord, tokenRecordSchema } from "./token-record.ts";

let world: ResearchWorld | undefined;
let model: FakeOpenAI | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
  await world?.close();
  world = undefined;
  await cleanup();
});

type Message = { role: string; content: string };
const messagesOf = (r: RecordedRequest) => (r.body as { messages: Message[] }).messages;
const READER = "You read a single web page on behalf of a researcher";

/** SMTL's checkpoints in their tag format: a plan, a search, a page read, a cited answer. */
function smtlNative(): (request: RecordedRequest) => Reply {
  const seen = new Set<string>();
  return (request) => {
    const messages = messagesOf(request);
    const system = messages.find((m) => m.role === "system")?.content ?? "";
    const last = messages.at(-1)!.content;
    if (system.includes(READER) || last.includes(READER)) {
      const page = /Topic \d+ saw measured growth[^.]*\./.exec(last)?.[0] ?? "Topic 2 saw measured growth.";
      return {
        kind: "text",
        text: JSON.stringify({ rationale: "the figure", evidence: [page], summary: page }),
      };
    }
    if (!system.includes(NATIVE_MARKER)) return { kind: "error", status: 400 };
    const turns = messages.filter((m) => m.role === "assistant").length;
    const firstUrl = () => /(http\S+\/page\/\d+)/.exec(messages.map((m) => m.content).join("\n"))?.[1];
    // At the context budget: a summary; after the reset to it, the answer.
    if (last.endsWith(SUMMARY_NUDGE))
      return {
        kind: "text",
        text: `<summary>\n## Plan Summary\nTopic 2 grew; source ${firstUrl()}\n</summary>`,
      };
    if (messages.find((m) => m.role === "user")!.content.startsWith(TRUNCATED_NOTE))
      return {
        kind: "text",
        text: `<answer>Topic 2 [1]\n\nReferences:\n[1]. ${firstUrl()} - Page 2</answer>`,
      };
    const call = (name: string, args: Record<string, string>) =>
      `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
    if (turns === 0)
      return {
        kind: "text",
        text: "<plan>\n## Goal 1: find the topic that grew\n- Path 1.1: search the survey\n</plan>",
      };
    if (turns === 1) {
      // The first time a conversation reaches its search, a malformed reply (re-sampled in place).
      const key = JSON.stringify(messages);
      if (!seen.has(key)) {
        seen.add(key);
        return {
          kind: "text",
          text: `Searching.\n${call("web_search", { query: "topic 2 growth 2025" })}\n<tool_call>\n`,
        };
      }
      return { kind: "text", text: `Searching.\n${call("web_search", { query: "topic 2 growth 2025" })}` };
    }
    const url = /\]\((http[^)\s]+\/page\/\d+)\)/.exec(last)?.[1] ?? /(http\S+\/page\/\d+)/.exec(last)?.[1];
    if (turns === 2)
      return { kind: "text", text: `Read it.\n${call("crawl_page", { url: url!, query: "growth" })}` };
    const cited = /(http\S+\/page\/\d+)/.exec(messages.map((m) => m.content).join("\n"))![1]!;
    return { kind: "text", text: `<answer>Topic 2 [1]\n\nReferences:\n[1]. ${cited} - Page 2</answer>` };
  };
}

/** AgentCPM-Report's checkpoints: search, init-plan, write, extend-plan (one expansion). */
function warpNative(): (request: RecordedRequest) => Reply {
  let extended = 0;
  return (request) => {
    const prompt = messagesOf(request).find((m) => m.role === "user")?.content ?? "";
    const role = nativeRole(prompt);
    if (!role) return { kind: "error", status: 400 };
    if (role === "search") {
      const cursor = cursorOf(prompt) ?? "outline";
      return {
        kind: "text",
        text: tagged(
          `Find material for ${cursor}.`,
          JSON.stringify({ name: "search", keywords: ["heat pump"] }),
        ),
      };
    }
    if (role === "init-plan") {
      const sections = ["Efficiency", "Costs", "Grid"].map((title) => ({ title, plan: `Explain ${title}` }));
      return {
        kind: "text",
        text: tagged("Three aspects.", JSON.stringify({ name: "init-plan", title: "Heat pumps", sections })),
      };
    }
    if (role === "write") {
      const [a, b] = bibkeys(prompt);
      return {
        kind: "text",
        text: tagged(`Use ${a}.`, `Content of ${cursorOf(prompt)}: trials measured it \\cite{${a}, ${b}}.`),
      };
    }
    const candidate = expandable(prompt)[0];
    if (extended >= 1 || !candidate)
      return { kind: "text", text: tagged("Deep enough.", JSON.stringify({ name: "nop" })) };
    extended++;
    const subsections = [
      { title: "Field trials", plan: "What trials measured" },
      { title: "Lab tests", plan: "What labs measured" },
    ];
    return {
      kind: "text",
      text: tagged(
        `Deepen ${candidate}.`,
        JSON.stringify({ name: "extend-plan", position: candidate, subsections }),
      ),
    };
  };
}

/** Reads a folder's tokens export, each record checked against its schema. */
function exported(dir: string): TokenRecord[] {
  const result = exportRollouts(dir, { format: "tokens", tokens: { policyVersion: "v7" } });
  expect(result.skipped).toEqual([]);
  return String(result.content)
    .trim()
    .split("\n")
    .map((line) => tokenRecordSchema.parse(JSON.parse(line)));
}

/** The checks every record passes against the recorded calls (see the module comment). */
function checkRecord(r: TokenRecord, calls: ReadonlyMap<string, RecordedCall>) {
  const turns = r.call_ids.map((id) => calls.get(id)!);
  let model = 0;
  let cursor = 0;
  turns.forEach((call, k) => {
    const [s, e] = r.completion_spans[k]!;
    const ids = r.response_ids.slice(s, e);
    // The completion's ids decode back to exactly the model's completion (then its stop token).
    expect(ids.at(-1)).toBe(BYTE_TOKENIZER.eosId);
    expect(byteDecode(ids.slice(0, -1))).toBe(call.completion);
    expect(r.response_mask.slice(s, e).every((m) => m === 1)).toBe(true);
    // One log-prob per model token: the server's.
    expect(r.response_logprobs!.slice(s, e)).toEqual(ids.map((id, i) => fakeLogprob(id, i)));
    model += e - s;
    if (k > 0) {
      // Between two turns: exactly the observation the agent was told, in the template's markers.
      const before = turns[k - 1]!;
      const told = call.messages.slice(before.messages.length + 1);
      expect(call.messages.slice(0, before.messages.length)).toEqual(before.messages);
      expect(call.messages[before.messages.length]).toEqual({
        role: "assistant",
        content: before.completion,
      });
      const between = r.response_ids.slice(cursor, s);
      expect(byteDecode(between, true)).toBe(
        `\n${told.map((m) => `${m.role}\n${m.content}`).join("\n")}\nassistant\n`,
      );
      expect(r.response_mask.slice(cursor, s).every((m) => m === 0)).toBe(true);
      expect(r.response_logprobs!.slice(cursor, s).every((l) => l === 0)).toBe(true);
    }
    cursor = e;
  });
  expect(cursor).toBe(r.response_ids.length);
  // The mask covers exactly the model tokens.
  expect(r.response_mask.reduce<number>((n, m) => n + m, 0)).toBe(model);
  expect(r.loss_mask).toEqual(
    r.response_mask.map((m, i) => {
      const k = r.completion_spans.findIndex(([s, e]) => i >= s && i < e);
      return k >= 0 && turns[k]!.formatErrors.length > 0 ? 0 : m;
    }),
  );
  expect(r).toMatchObject({ token_source: "server", policy_version: "v7", constrained_call_ids: [] });
}

describe("token-level rollouts against a vLLM-style server", () => {
  it("smtl native: one trajectory per rollout, decoding to its completions and observations", async () => {
    world = await startResearchWorld({});
    model = await startFakeOpenAI({ handler: smtlNative(), tokens: { tokenizer: BYTE_TOKENIZER } });
    const dossier = createDossier({
      config: { ...world.config, baseUrl: model.url },
      cwd: world.home,
      env: {},
    });
    const dir = join(world.home, "rollouts");
    try {
      const result = await runRollouts({
        rows: [
          { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
        ],
        dir,
        strategy: "smtl",
        group: 2,
        strategyOptions: { protocol: "native" },
        research: { currentDate: "2026-03-01", recordTokens: true },
        dossier,
      });
      expect(result.progress).toMatchObject({ done: 2, failed: 0 });
    } finally {
      await dossier.close();
    }
    // The server was asked for ids and log-probs on every call.
    for (const r of model.requests) expect(r.body).toMatchObject({ return_token_ids: true, logprobs: true });
    const runs = readRolloutRuns(dir);
    const calls = new Map(
      runs.flatMap((run) => run.calls.map((c) => [`${run.runId}/${c.callId}`, c] as const)),
    );
    const records = exported(dir);
    for (const r of records)
      checkRecord(r, new Map(r.call_ids.map((id) => [id, calls.get(`${r.run_id}/${id}`)!])));
    for (const run of runs) {
      const own = records.filter((r) => r.run_id === run.runId);
      const agent = own.filter((r) => r.unit === "trajectory");
      expect(agent).toHaveLength(1);
      expect(agent[0]).toMatchObject({ role: "searcher", segment: 0, segment_start: "first", turns: 4 });
      // Every searcher call is in the trajectory or stands alone as a refused re-sample.
      const searcher = run.calls.filter((c) => c.role === "searcher").map((c) => c.callId);
      const alone = own.filter((r) => r.unit === "call" && r.role === "searcher");
      expect([...agent[0]!.call_ids, ...alone.flatMap((r) => r.call_ids)].sort()).toEqual(searcher.sort());
      for (const r of alone) expect(r.loss_mask.every((m) => m === 0)).toBe(true);
      // The page reader's summaries (engine work inside crawl_page) are calls of their own.
      for (const r of own.filter((x) => x.role === "reader")) expect(r).toMatchObject({ unit: "call" });
    }
    // The first rollout met the malformed reply and re-sampled it.
    expect(records.filter((r) => r.rejected_call_ids.length > 0)).toHaveLength(1);
  }, 120_000);

  it("smtl native: a context reset ends the segment, and the next one records where the prefix broke", async () => {
    world = await startResearchWorld({});
    model = await startFakeOpenAI({ handler: smtlNative(), tokens: { tokenizer: BYTE_TOKENIZER } });
    const dossier = createDossier({
      config: { ...world.config, baseUrl: model.url },
      cwd: world.home,
      env: {},
    });
    const dir = join(world.home, "rollouts");
    try {
      const result = await runRollouts({
        rows: [
          { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
        ],
        dir,
        strategy: "smtl",
        group: 1,
        // A context budget the conversation passes after its first search.
        strategyOptions: { protocol: "native", contextTokens: 1000 },
        research: { currentDate: "2026-03-01", recordTokens: true },
        dossier,
      });
      expect(result.progress).toMatchObject({ done: 1, failed: 0 });
    } finally {
      await dossier.close();
    }
    const [run] = readRolloutRuns(dir);
    const records = exported(dir).filter((r) => r.unit === "trajectory");
    const calls = new Map(run!.calls.map((c) => [c.callId, c] as const));
    for (const r of records) checkRecord(r, calls);
    expect(records.map((r) => [r.segment, r.segment_start, r.turns])).toEqual([
      [0, "first", 3],
      [1, "break", 1],
    ]);
    const [before, after] = records;
    const summary = calls.get(before!.call_ids.at(-1)!)!;
    expect(summary.completion).toMatch(/^<summary>/);
    expect(summary.messages.at(-1)!.content.endsWith(SUMMARY_NUDGE)).toBe(true);
    // The reset: the next call's prompt does not extend the summary call's prompt and completion.
    const reset = calls.get(after!.call_ids[0]!)!;
    expect(reset.messages.find((m) => m.role === "user")!.content.startsWith(TRUNCATED_NOTE)).toBe(true);
    expect(after!.segment_break!.after_call_id).toBe(summary.callId);
    const tip = [...summary.tokens!.promptIds!, ...summary.tokens!.completionIds!];
    const at = after!.segment_break!.at_token;
    expect(reset.tokens!.promptIds!.slice(0, at)).toEqual(tip.slice(0, at));
    expect(reset.tokens!.promptIds![at]).not.toBe(tip[at]);
    expect(after!.prompt_ids).toEqual(reset.tokens!.promptIds);
  }, 120_000);

  it("warp native: one (state, action) call per call of its rebuilt prompts", async () => {
    model = await startFakeOpenAI({ handler: warpNative(), tokens: { tokenizer: BYTE_TOKENIZER } });
    const { root, docs } = notesProject();
    const dossier = createDossier({
      env: { DOSSIER_HOME: join(root, ".dossier") },
      cwd: root,
      config: { model: "openai-compatible:agentcpm-report", baseUrl: model.url, apiKey: "sk-test" },
    });
    const dir = join(root, "rollouts");
    try {
      const result = await runRollouts({
        rows: [{ id: "q1", prompt: "How do heat pumps perform in cold climates?" }],
        dir,
        strategy: "warp",
        group: 2,
        strategyOptions: { protocol: "native" },
        research: { currentDate: "2026-03-01", docs, sources: "local-only", recordTokens: true },
        dossier,
      });
      expect(result.items.map((x) => x.error ?? "")).toEqual(["", ""]);
      expect(result.progress).toMatchObject({ done: 2, failed: 0 });
    } finally {
      await dossier.close();
    }
    const runs = readRolloutRuns(dir);
    const records = exported(dir);
    const total = runs.reduce((n, run) => n + run.calls.length, 0);
    expect(records).toHaveLength(total);
    for (const r of records) {
      const run = runs.find((x) => x.runId === r.run_id)!;
      expect(r).toMatchObject({ unit: "call", turns: 1, segment: null, segment_start: null });
      const call = run.calls.find((c) => c.callId === r.call_ids[0])!;
      checkRecord(r, new Map([[call.callId, call]]));
      expect(r.prompt_ids).toEqual(call.tokens!.promptIds);
      expect(r.sampling).toMatchObject({ temperature: 0.7, topP: 0.8 });
    }
    expect(new Set(records.map((r) => r.role))).toEqual(new Set(["searcher", "planner", "writer"]));
  }, 120_000);
});
