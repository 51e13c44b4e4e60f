/**
 * Token-level rollouts through the CLI: `dossier train rollouts --tokens` against a vLLM-style
 * server (the research world's scripted model behind the fake server's token ids) records every
 * call's ids; `dossier train export --format tokens --policy-version` writes them with the
 * policy's version and names the calls smtl's JSON protocol decoded under its schema
 * (constrained); the token flags are refused where they do not apply, before anything is
 * written.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { BYTE_TOKENIZER, type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { tokenRecordSchema } from "../../train/tokens/token-record.ts";

let world: ResearchWorld | undefined;
let policy: FakeOpenAI | undefined;
afterEach(async () => {
  await policy?.close();
  policy = undefined;
  await world?.close();
  world = undefined;
});

async function cli(args: string[], code = 0) {
  const result = await runCliInProcess(args, {
    cwd: world!.home,
    env: {
      HOME: world!.home,
      DOSSIER_HOME: world!.home,
      DOSSIER_MODEL: "openai-compatible:fake-model",
      DOSSIER_BASE_URL: policy!.url,
      DOSSIER_API_KEY: "sk-test",
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: world!.search.baseUrl("searxng"),
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    },
  });
  expect(result.code, result.stderr).toBe(code);
  return result;
}

describe("dossier train rollouts --tokens and train export --format tokens", () => {
  it("records the server's ids and exports them with the policy version and the constrained calls", async () => {
    world = await startResearchWorld({});
    policy = await startFakeOpenAI({ handler: world.script.handler, tokens: { tokenizer: BYTE_TOKENIZER } });
    const row = {
      id: "q1",
      prompt: "Which topic saw measured growth in the 2025 survey?",
      answer: "Topic 2",
    };
    writeFileSync(join(world.home, "q.jsonl"), `${JSON.stringify(row)}\n`);
    await cli([
      "train",
      "rollouts",
      "q.jsonl",
      "--strategy",
      "smtl",
      "--group",
      "2",
      "--tokens",
      "--out",
      "ro",
      "--date",
      "2026-03-01",
    ]);
    for (const r of policy.requests) expect(r.body).toMatchObject({ return_token_ids: true, logprobs: true });

    const out = await cli([
      "train",
      "export",
      "ro",
      "--format",
      "tokens",
      "--policy-version",
      "3",
      "--out",
      "t.jsonl",
      "--json",
    ]);
    const summary = JSON.parse(out.stdout) as { records: number; skipped: number };
    expect(summary.skipped).toBe(0);
    const records = readFileSync(join(world.home, "t.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => tokenRecordSchema.parse(JSON.parse(line)));
    expect(records).toHaveLength(summary.records);
    expect(new Set(records.map((r) => r.run_id)).size).toBe(2);
    for (const r of records) expect(r).toMatchObject({ token_source: "server", policy_version: "3" });
    // smtl's JSON protocol asks with the provider's schema mode: those calls were constrained.
    const constrained = records.flatMap((r) => r.constrained_call_ids);
    expect(constrained.length).toBeGreaterThan(0);

    // A .parquet file gets the same records as Parquet.
    await cli(["train", "export", "ro", "--format", "tokens", "--out", "t.parquet"]);
    const parquet = readFileSync(join(world.home, "t.parquet"));
    expect(parquet.subarray(0, 4).toString()).toBe("PAR1");
    expect(parquet.subarray(-4).toString()).toBe("PAR1");

    // The token flags apply to the tokens format only; --retokenize needs a tokenizer; a missing
    // tokenizer folder is refused; nothing is written.
    const rl = await cli(
      ["train", "export", "ro", "--format", "rl", "--tokenizer", ".", "--out", "x.jsonl"],
      2,
    );
    expect(rl.stderr).toContain("apply to --format tokens");
    const re = await cli(
      ["train", "export", "ro", "--format", "tokens", "--retokenize", "--out", "x.jsonl"],
      2,
    );
    expect(re.stderr).toContain("--retokenize needs --tokenizer");
    const missing = await cli(
      ["train", "export", "ro", "--format", "tokens", "--tokenizer", "nowhere", "--out", "x.jsonl"],
      1,
    );
    expect(missing.stderr).toMatch(/NOT_FOUND.*has no tokenizer_config\.json/);
    expect(existsSync(join(world.home, "x.jsonl"))).toBe(false);
  }, 120_000);
});
