/**
 * The `tokens` export as Parquet, read back by DuckDB (an independent reader): every column with
 * its documented type, and the rows equal to the JSON records (ids, masks, log-probs, spans,
 * structs, nulls).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { byteEncode, chatMl, fakeLogprob } from "../../../test/fake-openai/index.ts";
import type { RecordedCall, RecordedMessage } from "../recorded-call.ts";
import { fixtureCall, fixtureRun } from "../test-fixtures.ts";
import { tokenRecords } from "../tokens/token-record.ts";
import { tokensParquet } from "./tokens-parquet.ts";
import { writeExportFile } from "./write.ts";

const dir = mkdtempSync(join(tmpdir(), "dossier-tokens-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function call(callId: string, step: number, messages: RecordedMessage[], completion: string): RecordedCall {
  const completionIds = [...byteEncode(completion), 257];
  return fixtureCall({
    callId,
    step,
    messages,
    completion,
    finishReason: "stop",
    sampling: { temperature: 1, topP: 0.9, seed: 7 },
    tokens: {
      constrained: false,
      promptIds: byteEncode(chatMl(messages)),
      completionIds,
      logprobs: completionIds.map((id, i) => fakeLogprob(id, i)),
    },
  });
}

describe("tokens export as Parquet", () => {
  it("writes every column with its type, and DuckDB reads back the records as written", async () => {
    const task: RecordedMessage[] = [{ role: "user", content: "Which museum?" }];
    const c1 = call("L1", 1, task, "<tool_call>x</tool_call>");
    const c2 = call(
      "L2",
      2,
      [...task, { role: "assistant", content: c1.completion }, { role: "user", content: "obs" }],
      "<answer>y</answer>",
    );
    const reader = fixtureCall({ callId: "L3", step: 2, role: "reader", toolCallId: "T1", completion: "s" });
    const { records } = tokenRecords([
      {
        run: fixtureRun({ calls: [c1, c2, reader] }),
        reward: { reward: 1, components: { correct: 1 } },
        advantage: 0.5,
      },
    ]);
    expect(records).toHaveLength(1);
    const path = join(dir, "tokens.parquet");
    writeExportFile(path, tokensParquet(records));
    const db = await DuckDBInstance.create(":memory:");
    const connection = await db.connect();
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
    const types = Object.fromEntries(
      described.getRowObjectsJson().map((r) => [r.column_name, r.column_type]),
    );
    const rows = (
      await connection.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)
    ).getRowObjectsJson();
    connection.closeSync();
    db.closeSync();
    expect(types).toMatchObject({
      prompt_ids: "INTEGER[]",
      response_ids: "INTEGER[]",
      response_mask: "INTEGER[]",
      loss_mask: "INTEGER[]",
      response_logprobs: "DOUBLE[]",
      completion_spans: 'STRUCT("start" INTEGER, "end" INTEGER)[]',
      segment_break: "STRUCT(after_call_id VARCHAR, at_token INTEGER)",
      sampling: "STRUCT(temperature DOUBLE, top_p DOUBLE, max_output_tokens INTEGER, seed BIGINT)",
      call_ids: "VARCHAR[]",
      reward: "DOUBLE",
      advantage: "DOUBLE",
      reward_components: "VARCHAR",
    });
    const r = records[0]!;
    const row = rows[0]!;
    expect(row).toMatchObject({
      id: r.id,
      unit: "trajectory",
      call_ids: ["L1", "L2"],
      turns: 2,
      prompt_ids: r.prompt_ids,
      response_ids: r.response_ids,
      response_mask: r.response_mask,
      loss_mask: r.loss_mask,
      response_logprobs: r.response_logprobs,
      completion_spans: r.completion_spans.map(([start, end]) => ({ start, end })),
      segment_break: null,
      sampling: { temperature: 1, top_p: 0.9, max_output_tokens: null, seed: "7" },
      reward: 1,
      reward_components: '{"correct":1}',
      advantage: 0.5,
      policy_version: null,
    });
    expect(() => tokensParquet([])).toThrow(/at least one record/);
  });
});
