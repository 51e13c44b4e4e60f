/**
 * WARP pruning in the `tokens` export, on a real forced-expansion run of the scripted world whose
 * calls carry server ids (a byte tokenizer standing in for the policy server): the run ends at the
 * relabelled TERMINATE on its unforced request — never sampled, so tokenized with the checkpoint's
 * tokenizer and named in `relabelled_call_ids`, or skipped with the reason without one — and holds
 * no call after the cut; `warpPruning: false` exports the calls as recorded.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BYTE_TOKENIZER, byteDecode, byteEncode, chatMl } from "../../../test/fake-openai/index.ts";
import { forcedExpansionRun } from "../../../test/warp/forced-run.ts";
import { cleanup } from "../../../test/warp/kit.ts";
import { prunedRun } from "../curation/warp-pruned-run.ts";
import { tokensExport } from "../export/tokens.ts";
import type { RecordedCall } from "../recorded-call.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { rolloutPath } from "../rollouts/rollout-dir.ts";
import type { CheckpointTokenizer } from "./checkpoint-tokenizer.ts";
import { tokenRecordSchema } from "./token-record.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanup();
});

/** A rollouts folder holding `runs` (no rewards file). */
function writeRolloutsFixture(runs: readonly RecordedRun[]): string {
  const dir = mkdtempSync(join(tmpdir(), "dossier-tokens-pruning-"));
  dirs.push(dir);
  writeFileSync(rolloutPath(dir, "runs"), runs.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return dir;
}

const TERMINATE = '{"name":"terminate"}';

/** The call as a server returning ids would have recorded it. */
function withServerIds(call: RecordedCall): RecordedCall {
  const completionIds = [...byteEncode(call.completion), BYTE_TOKENIZER.eosId];
  return {
    ...call,
    tokens: {
      constrained: false,
      promptIds: byteEncode(chatMl(call.messages)),
      completionIds,
      logprobs: completionIds.map(() => -0.25),
    },
  };
}

const tokenizer: CheckpointTokenizer = {
  promptIds: (messages) => byteEncode(chatMl(messages)),
  completionIds: (text, stopped) => [...byteEncode(text), ...(stopped ? [BYTE_TOKENIZER.eosId] : [])],
  decode: (ids) => byteDecode(ids),
  eosId: BYTE_TOKENIZER.eosId,
};

async function forcedRunWithIds(): Promise<RecordedRun> {
  const { run, status } = await forcedExpansionRun();
  expect(status).toBe("completed");
  return { ...run, calls: run.calls.map(withServerIds) };
}

describe("WARP pruning in the tokens export", () => {
  it("ends a forced run at the relabelled TERMINATE, tokenized by the checkpoint's tokenizer", async () => {
    const run = await forcedRunWithIds();
    const { terminate, dropped } = prunedRun(run);
    expect(dropped.length).toBeGreaterThan(0);
    const dir = writeRolloutsFixture([run]);

    const out = tokensExport(dir, { tokenizer });
    for (const r of out.records) tokenRecordSchema.parse(r);
    const ids = out.records.flatMap((r) => r.call_ids);
    // every call up to the cut, as the server gave it, then the TERMINATE; nothing after the cut
    const kept = run.calls.filter((c) => !dropped.includes(c.callId)).map((c) => c.callId);
    expect(ids).toEqual([...kept, terminate.callId]);
    for (const id of dropped) expect(ids).not.toContain(id);
    expect(out.skipped.filter((s) => /after the cut/.test(s.reason)).map((s) => s.callId)).toEqual(dropped);

    const end = out.records.at(-1)!;
    expect(end.relabelled_call_ids).toEqual([terminate.callId]);
    expect(byteDecode(end.response_ids, true)).toBe(TERMINATE);
    expect(end).toMatchObject({ token_source: "retokenized", response_logprobs: null });
    expect(end.loss_mask.every((m) => m === 1)).toBe(true);
    // on the request the policy would have had unforced
    expect(byteDecode(end.prompt_ids)).not.toContain("You must expand");
    // the kept calls keep the server's ids and log-probs, and are not relabelled
    for (const r of out.records.slice(0, -1)) {
      expect(r.relabelled_call_ids).toEqual([]);
      expect(r.token_source).toBe("server");
      expect(r.response_logprobs).not.toBeNull();
    }
  });

  it("skips the never-sampled TERMINATE with the reason when no tokenizer is given", async () => {
    const run = await forcedRunWithIds();
    const { terminate, dropped } = prunedRun(run);
    const out = tokensExport(writeRolloutsFixture([run]), {});
    const ids = out.records.flatMap((r) => r.call_ids);
    expect(ids).toEqual(run.calls.filter((c) => !dropped.includes(c.callId)).map((c) => c.callId));
    expect(out.skipped.find((s) => s.callId === terminate.callId)?.reason).toMatch(
      /relabelled TERMINATE.*never sampled.*tokenizer/,
    );
  });

  it("exports the calls as recorded with warpPruning false", async () => {
    const run = await forcedRunWithIds();
    const out = tokensExport(writeRolloutsFixture([run]), { warpPruning: false });
    expect(out.records.flatMap((r) => r.call_ids)).toEqual(run.calls.map((c) => c.callId));
    expect(out.records.every((r) => r.relabelled_call_ids.length === 0)).toBe(true);
    expect(out.skipped).toEqual([]);
  });
});
