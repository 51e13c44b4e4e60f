/**
 * Token sequences of recorded calls: an appending agent is one trajectory whose response is its
 * completions and the tokens between them (mask 0), each prompt checked to extend the previous
 * prompt and completion; a context reset starts a new segment and says where the prefix broke;
 * a refused reply the agent re-sampled in place of stands alone with loss 0; an agent that
 * rebuilds its prompt gives one (state, action) call per call, repair rounds included; engine
 * calls stand alone; calls without ids are skipped or re-tokenized, and say so.
 */

import { describe, expect, it } from "vitest";
import {
  BYTE_TOKENIZER,
  byteDecode,
  byteEncode,
  chatMl,
  fakeLogprob,
} from "../../../test/fake-openai/index.ts";
import type { RecordedCall, RecordedMessage } from "../recorded-call.ts";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import type { CheckpointTokenizer } from "./checkpoint-tokenizer.ts";
import { type TokenRecord, tokenRecordSchema, tokenRecords } from "./token-record.ts";

const SYSTEM: RecordedMessage = { role: "system", content: "You search." };

/** A call whose server ids are the byte tokenizer's (as the fake vLLM answers). */
function call(
  callId: string,
  step: number,
  messages: RecordedMessage[],
  completion: string,
  fields: Partial<RecordedCall> = {},
): RecordedCall {
  const completionIds = [...byteEncode(completion), 257];
  return fixtureCall({
    callId,
    step,
    messages,
    completion,
    finishReason: "stop",
    tokens: {
      constrained: false,
      promptIds: byteEncode(chatMl(messages)),
      completionIds,
      logprobs: completionIds.map((id, i) => fakeLogprob(id, i)),
    },
    ...fields,
  });
}

const u = (content: string): RecordedMessage => ({ role: "user", content });
const a = (content: string): RecordedMessage => ({ role: "assistant", content });

function records(calls: RecordedCall[], options: Parameters<typeof tokenRecords>[1] = {}) {
  const run = fixtureRun({ calls });
  const result = tokenRecords(
    [{ run, reward: { reward: 1, components: { correct: 1 } }, advantage: 0.5 }],
    options,
  );
  for (const r of result.records) tokenRecordSchema.parse(r);
  return result;
}

/** The text of the response's model tokens, turn by turn, and of the tokens between them. */
function split(r: TokenRecord) {
  const model: string[] = [];
  const between: string[] = [];
  let run: number[] = [];
  let kind = 1;
  const flush = () => {
    if (run.length) (kind === 1 ? model : between).push(byteDecode(run, true));
    run = [];
  };
  r.response_ids.forEach((id, i) => {
    if (r.response_mask[i] !== kind) {
      flush();
      kind = r.response_mask[i]!;
    }
    run.push(id);
  });
  flush();
  return { model, between };
}

describe("token records", () => {
  const task = [SYSTEM, u("Which museum reopened?")];
  const c1 = call("L1", 1, task, "<tool_call>search museum</tool_call>");
  const turn2 = [...task, a(c1.completion), u("<tool_response>The Louvre annex reopened.</tool_response>")];
  const c2 = call("L2", 2, turn2, "<tool_call>read page</tool_call>");
  const turn3 = [...turn2, a(c2.completion), u("<tool_response>It reopened in 2025.</tool_response>")];
  const c3 = call("L3", 3, turn3, "<answer>The Louvre annex</answer>");

  it("makes an appending agent one trajectory: completions at mask 1, observations at 0, log-probs aligned", () => {
    const { records: out, skipped } = records([c1, c2, c3]);
    expect(skipped).toEqual([]);
    expect(out).toHaveLength(1);
    const r = out[0]!;
    expect(r).toMatchObject({
      unit: "trajectory",
      segment: 0,
      segment_start: "first",
      segment_break: null,
      call_ids: ["L1", "L2", "L3"],
      turns: 3,
      token_source: "server",
      reward: 1,
      reward_components: { correct: 1 },
      advantage: 0.5,
      policy: "openai-compatible:policy",
      status: "completed",
    });
    expect(r.prompt_ids).toEqual(byteEncode(chatMl(task)));
    const { model, between } = split(r);
    expect(model).toEqual([c1.completion, c2.completion, c3.completion]);
    expect(between).toEqual([
      "\nuser\n<tool_response>The Louvre annex reopened.</tool_response>\nassistant\n",
      "\nuser\n<tool_response>It reopened in 2025.</tool_response>\nassistant\n",
    ]);
    // prompt + response is exactly the last call's prompt and completion.
    expect([...r.prompt_ids, ...r.response_ids]).toEqual([
      ...c3.tokens!.promptIds!,
      ...c3.tokens!.completionIds!,
    ]);
    // One log-prob per model token, the server's; 0 between turns.
    const modelLogprobs = r.response_logprobs!.filter((_, i) => r.response_mask[i] === 1);
    expect(modelLogprobs).toEqual([c1, c2, c3].flatMap((c) => c.tokens!.logprobs!));
    expect(r.response_logprobs!.filter((_, i) => r.response_mask[i] === 0).every((l) => l === 0)).toBe(true);
    expect(r.loss_mask).toEqual(r.response_mask);
    for (const [k, [s, e]] of r.completion_spans.entries())
      expect(r.response_ids.slice(s, e)).toEqual([c1, c2, c3][k]!.tokens!.completionIds);
  });

  it("starts a new segment at a context reset and records where the prefix broke", () => {
    const reset = [SYSTEM, u("Which museum reopened?\n\nSummary so far: the Louvre annex, 2025.")];
    const c3r = call("L3", 3, reset, "<tool_call>verify</tool_call>");
    const c4 = call(
      "L4",
      4,
      [...reset, a(c3r.completion), u("<tool_response>Confirmed.</tool_response>")],
      "<answer>x</answer>",
    );
    const { records: out } = records([c1, c2, c3r, c4]);
    expect(out.map((r) => [r.unit, r.segment, r.segment_start, r.call_ids])).toEqual([
      ["trajectory", 0, "first", ["L1", "L2"]],
      ["trajectory", 1, "break", ["L3", "L4"]],
    ]);
    const tip = [...c2.tokens!.promptIds!, ...c2.tokens!.completionIds!];
    const at = out[1]!.segment_break!.at_token;
    expect(out[1]!.segment_break!.after_call_id).toBe("L2");
    expect(c3r.tokens!.promptIds!.slice(0, at)).toEqual(tip.slice(0, at));
    expect(c3r.tokens!.promptIds![at]).not.toBe(tip[at]);
    expect(out[1]!.prompt_ids).toEqual(c3r.tokens!.promptIds);
  });

  it("takes a refused reply the agent re-sampled in place of out of the trajectory, with loss 0", () => {
    const bad = call("L2", 2, turn2, "<tool_call>unclosed", { formatErrors: ["a tag is left open"] });
    const again = call("L3", 2, turn2, c2.completion);
    const next = call(
      "L4",
      3,
      [...turn2, a(c2.completion), u("<tool_response>x</tool_response>")],
      "<answer>y</answer>",
    );
    const { records: out } = records([c1, bad, again, next]);
    expect(out.map((r) => [r.unit, r.call_ids, r.segment_start])).toEqual([
      ["trajectory", ["L1", "L3", "L4"], "first"],
      ["call", ["L2"], null],
    ]);
    const rejected = out[1]!;
    expect(rejected.rejected_call_ids).toEqual(["L2"]);
    expect(rejected.format_errors).toEqual(["a tag is left open"]);
    expect(rejected.response_mask.every((m) => m === 1)).toBe(true);
    expect(rejected.loss_mask.every((m) => m === 0)).toBe(true);
    expect(out[0]!.rejected_call_ids).toEqual([]);
  });

  it("keeps a refused last reply in its trajectory with loss 0 on its turn only", () => {
    const bad = call("L3", 3, turn3, "<answer>unclosed", { formatErrors: ["no closing tag"] });
    const [r] = records([c1, c2, bad]).records;
    const [s, e] = r!.completion_spans[2]!;
    expect(r!.loss_mask.slice(s, e).every((m) => m === 0)).toBe(true);
    expect(r!.loss_mask.slice(0, s)).toEqual(r!.response_mask.slice(0, s));
    expect(r!.rejected_call_ids).toEqual(["L3"]);
  });

  it("gives an agent that rebuilds its prompt one (state, action) call per call, a repair round included", () => {
    const p1 = [SYSTEM, u("Write section 1 from passages A.")];
    const w1 = call("L1", 1, p1, "not json", { formatErrors: ["not JSON"] });
    const w1b = call(
      "L2",
      1,
      [...p1, a("not json"), u("Your answer could not be used.")],
      '{"content": "ok"}',
    );
    const w2 = call("L3", 2, [SYSTEM, u("Write section 2 from passages B.")], '{"content": "two"}');
    const reader = call("L4", 2, [u("Read this page.")], "summary", { role: "reader", toolCallId: "T1" });
    const { records: out } = records([w1, w1b, w2, reader]);
    expect(out.map((r) => [r.unit, r.call_ids, r.tool_call_id])).toEqual([
      ["call", ["L1"], null],
      ["call", ["L2"], null],
      ["call", ["L3"], null],
      ["call", ["L4"], "T1"],
    ]);
    for (const r of out) {
      expect(r.segment).toBeNull();
      expect(byteDecode(r.response_ids, true)).toBe(
        [w1, w1b, w2, reader].find((c) => c.callId === r.call_ids[0])!.completion,
      );
    }
  });

  it("skips calls without ids unless given a tokenizer, and then says they were re-tokenized, without log-probs", () => {
    const bare = [c1, c2].map(({ tokens: _t, ...rest }) => rest as RecordedCall);
    const none = records(bare);
    expect(none.records).toEqual([]);
    expect(none.skipped.map((s) => [s.callId, s.reason])).toEqual([
      ["L1", expect.stringContaining("recorded no token ids")],
      ["L2", expect.stringContaining("recorded no token ids")],
    ]);
    const tokenizer: CheckpointTokenizer = {
      promptIds: (messages) => byteEncode(chatMl(messages)),
      completionIds: (text, stopped) => [...byteEncode(text), ...(stopped ? [257] : [])],
      decode: (ids) => byteDecode(ids),
      eosId: BYTE_TOKENIZER.eosId,
    };
    const re = records(bare, { tokenizer, policyVersion: "step-40" }).records;
    expect(re).toHaveLength(1);
    expect(re[0]).toMatchObject({
      token_source: "retokenized",
      response_logprobs: null,
      policy_version: "step-40",
    });
    const server = records([c1, c2]).records[0]!;
    expect(re[0]!.prompt_ids).toEqual(server.prompt_ids);
    expect(re[0]!.response_ids).toEqual(server.response_ids);
  });

  it("skips failed calls and names the constrained ones", () => {
    const failed = fixtureCall({
      callId: "L9",
      step: 4,
      completion: "",
      error: { code: "TIMEOUT", message: "t" },
    });
    const constrained = call("L2", 1, [u("Plan.")], '{"plan": 1}', { role: "planner" });
    constrained.tokens = { ...constrained.tokens!, constrained: true };
    const { records: out, skipped } = records([constrained, failed]);
    expect(skipped).toEqual([{ runId: "run-1", callId: "L9", reason: "the call failed (TIMEOUT)" }]);
    expect(out[0]!.constrained_call_ids).toEqual(["L2"]);
  });
});
