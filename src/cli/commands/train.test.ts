/**
 * The learning loop end to end through the CLI in the loopback research world: `dossier train
 * rollouts` (2 questions × group 3) for smtl in its short-answer mode and for warp with three
 * forced expansions, `train reward` with the seed's reward and the group advantages, and the
 * four exports, each checked against its documented shape (the verl Parquet read back by
 * DuckDB). The scripted model answers differently by the request's sampling seed, so the
 * rollouts of one question differ and their rewards do too; it fails the test on any call
 * not declared. Bad input is refused before any model call.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import type { Reply } from "../../../test/fake-openai/types.ts";
import type { ChatBody } from "../../../test/research/model-script.ts";
import { userText } from "../../../test/research/replies.ts";
import { smtlStepAnswer } from "../../../test/research/smtl-answers.ts";
import { warpDeepenAnswer, warpWriteAnswer } from "../../../test/research/warp-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { grpoAdvantages } from "../../train/advantages/grpo.ts";
import { rlooAdvantages } from "../../train/advantages/rloo.ts";
import { isForcedExpansionRun, prunedRun } from "../../train/curation/warp-pruned-run.ts";
import { dpoRecordSchema } from "../../train/export/dpo.ts";
import { rlRecordSchema } from "../../train/export/rl.ts";
import { sftRecordSchema } from "../../train/export/sft.ts";
import { type RecordedRun, recordedRunSchema } from "../../train/recorded-run.ts";
import { runSteps } from "../../train/run-steps.ts";
import { type RewardRecord, rewardRecordSchema } from "../../train/score/score-runs.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ROWS = [
  { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
  { id: "q2", prompt: "How did battery costs and adoption change?", answer: "Topic 2" },
];

const seedOf = (body: ChatBody) => (body as ChatBody & { seed?: number }).seed ?? 0;

function envOf(w: ResearchWorld) {
  return {
    HOME: w.home,
    DOSSIER_HOME: w.home,
    DOSSIER_MODEL: "openai-compatible:fake-model",
    DOSSIER_BASE_URL: w.model.url,
    DOSSIER_API_KEY: "sk-test",
    DOSSIER_SEARCH: "searxng",
    SEARXNG_URL: w.search.baseUrl("searxng"),
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
  };
}

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);

async function readParquet(path: string) {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  const file = path.replaceAll("'", "''");
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  const columns = described.getRowObjectsJson().map((r) => [r.column_name, r.column_type]);
  const rows = (await connection.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson();
  connection.closeSync();
  db.closeSync();
  return { columns, rows };
}

/** Runs the CLI in the world; fails the test with the output when the exit code is not `code`. */
async function cli(w: ResearchWorld, args: string[], code = 0) {
  const run = await runCliInProcess(args, { cwd: w.home, env: envOf(w) });
  if (run.code !== code)
    throw new Error(`dossier ${args.join(" ")} exited ${run.code}\n${run.stdout}\n${run.stderr}`);
  return run;
}

/** The rollouts, rewards and the four exports of a folder, checked; returns the runs and records. */
async function rewardAndExport(w: ResearchWorld, reward: string, advantage: "grpo" | "rloo") {
  const runs = lines(join(w.home, "ro", "runs.jsonl")).map((r) => recordedRunSchema.parse(r));
  expect(runs.map((r) => `${r.group?.id}#${r.group?.index}`).sort()).toEqual([
    "q1#0",
    "q1#1",
    "q1#2",
    "q2#0",
    "q2#1",
    "q2#2",
  ]);
  const seeds = runs.map((r) => r.calls[0]!.sampling.seed);
  expect(new Set(seeds).size).toBe(6);
  for (const run of runs) {
    expect(run.status).toBe("completed");
    expect(run.calls.length).toBeGreaterThan(1);
    expect(new Set(run.calls.map((c) => c.sampling.seed))).toEqual(new Set([run.calls[0]!.sampling.seed]));
  }
  const sent = w.model.requests.map((r) => (r.body as { seed?: number }).seed);
  expect(new Set(sent.filter((s) => s !== undefined))).toEqual(new Set(seeds));

  await cli(w, ["train", "reward", "ro", "--reward", reward, "--advantage", advantage, "--dapo"]);
  const records = lines(join(w.home, "ro", `rewards-${reward}.jsonl`)).map((r) =>
    rewardRecordSchema.parse(r),
  );
  expect(records).toHaveLength(6);
  for (const id of ["q1", "q2"]) {
    const group = records.filter((r) => r.groupId === id).sort((a, b) => a.groupIndex! - b.groupIndex!);
    const rewards = group.map((r) => r.reward);
    const uniform = rewards.every((r) => r === rewards[0]);
    const expected = advantage === "rloo" ? rlooAdvantages(rewards) : grpoAdvantages(rewards);
    expect(group.map((r) => r.dropped)).toEqual(group.map(() => uniform));
    expect(group.map((r) => r.advantage)).toEqual(uniform ? group.map(() => null) : expected);
  }

  const exported = async (format: string, unit?: string) => {
    const file = `out-${format}${unit ? `-${unit}` : ""}.${format === "verl" ? "parquet" : "jsonl"}`;
    await cli(w, [
      "train",
      "export",
      "ro",
      "--format",
      format,
      "--out",
      file,
      ...(unit ? ["--unit", unit] : []),
    ]);
    return join(w.home, file);
  };
  const sft = lines(await exported("sft")).map((l) => sftRecordSchema.parse(l));
  // A forced-expansion warp run is taught pruned: its calls up to the best draft, then TERMINATE.
  const taught = (r: RecordedRun) => (isForcedExpansionRun(r) ? prunedRun(r).run.calls : r.calls);
  expect(sft.length).toBe(
    runs.reduce((n, r) => n + taught(r).filter((c) => !c.error && !c.formatErrors.length).length, 0),
  );
  for (const record of sft) expect(record.messages.at(-1)!.role).toBe("assistant");
  const trajectories = lines(await exported("sft", "trajectory")).map((l) => sftRecordSchema.parse(l));
  expect(trajectories.length).toBeGreaterThan(0);
  expect(trajectories.length).toBeLessThanOrEqual(sft.length);

  const dpo = lines(await exported("dpo")).map((l) => dpoRecordSchema.parse(l));
  const varied = ["q1", "q2"].filter((id) => records.some((r) => r.groupId === id && !r.dropped));
  expect(dpo).toHaveLength(varied.length);
  for (const pair of dpo) {
    expect("chosen_reward" in pair && pair.chosen_reward! > pair.rejected_reward!).toBe(true);
  }

  const rl = lines(await exported("rl")).map((l) => rlRecordSchema.parse(l));
  const byRun = new Map(records.map((r) => [r.runId, r]));
  expect(rl.length).toBeGreaterThan(0);
  for (const sample of rl) {
    const record = byRun.get(sample.run_id)!;
    expect(record.dropped).toBe(false);
    expect(sample.advantage).toBe(record.advantage);
    expect(sample.reward).toBe(record.reward);
  }

  const verl = await readParquet(await exported("verl"));
  expect(verl.columns.map(([name]) => name)).toEqual([
    "data_source",
    "prompt",
    "ability",
    "reward_model",
    "extra_info",
  ]);
  expect(verl.columns[1]![1]).toBe('STRUCT("role" VARCHAR, "content" VARCHAR)[]');
  expect(verl.rows.map((r) => [r.ability, r.reward_model])).toEqual([
    ["deep-search", { style: "rule", ground_truth: "Topic 2" }],
    ["deep-search", { style: "rule", ground_truth: "Topic 2" }],
  ]);
  expect(verl.rows.map((r) => (r.prompt as { content: string }[]).at(-1)!.content)).toEqual(
    ROWS.map((r) => r.prompt),
  );
  return { runs, records };
}

function writeRows(w: ResearchWorld) {
  writeFileSync(join(w.home, "q.jsonl"), ROWS.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

describe("dossier train in the research world", () => {
  it("smtl: 2 × 3 recorded rollouts in answer mode, resumed to nothing, the smtl reward with RLOO, four exports", async () => {
    // An odd seed answers a wrong topic: the group's rollouts differ, and so do their rewards.
    const override = (role: string, body: ChatBody): Reply | undefined => {
      if (role !== "smtl-step" || seedOf(body) % 2 === 0) return undefined;
      const reply = smtlStepAnswer(userText(body));
      return reply.kind === "text" ? { ...reply, text: reply.text.replace('"Topic 2"', '"Topic 9"') } : reply;
    };
    world = await startResearchWorld({
      override,
      // The judge is asked once per distinct answer: two per question ("Topic 2" and "Topic 9").
      expectCalls: { "smtl-plan": 6, "smtl-step": 12, reader: [1, 6], "answer-judge": 4 },
    });
    writeRows(world);
    const args = ["train", "rollouts", "q.jsonl", "--strategy", "smtl", "--group", "3", "--out", "ro"];
    const first = await cli(world, [...args, "--concurrency", "2", "--date", "2026-03-01"]);
    expect(first.stdout).toContain(
      "6 finished, 0 failed, 0 finished before, of 6 rollouts (2 questions × 3, smtl)",
    );
    const again = await cli(world, [...args, "--date", "2026-03-01", "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ done: 0, skipped: 6, failed: 0, unrecorded: [] });
    // Other settings in the same folder are refused before any model call.
    const other = await cli(world, [...args, "--seed", "5"], 1);
    expect(other.stderr).toContain("CONFLICT");
    // So are another policy, other budgets and other rows, each named (the script allows no call).
    const model = await runCliInProcess([...args, "--date", "2026-03-01"], {
      cwd: world.home,
      env: { ...envOf(world), DOSSIER_MODEL: "openai-compatible:other-model" },
    });
    expect([model.code, model.stderr]).toEqual([
      1,
      expect.stringMatching(/CONFLICT[\s\S]*policy: .*fake-model.*other-model/),
    ]);
    const budget = await cli(world, [...args, "--max-tool-calls", "7", "--date", "2026-03-01"], 1);
    expect(budget.stderr).toMatch(/CONFLICT[\s\S]*research options/);
    writeFileSync(join(world.home, "q2.jsonl"), `${JSON.stringify(ROWS[1])}\n`);
    const rows = await cli(
      world,
      [...args.slice(0, 2), "q2.jsonl", ...args.slice(3), "--date", "2026-03-01"],
      1,
    );
    expect(rows.stderr).toMatch(/CONFLICT[\s\S]*question rows differ/);
    expect(readFileSync(join(world.home, "ro", "rows.jsonl"), "utf8")).toContain(ROWS[0]!.prompt);

    const { runs, records } = await rewardAndExport(world, "smtl", "rloo");
    for (const run of runs) {
      // The short-answer mode (the smtl reward judges the answer), sampled as the paper does.
      expect(run.answer).not.toBeNull();
      expect(
        run.calls
          .filter((c) => c.role === "searcher")
          .every((c) => c.sampling.temperature === 1 && c.sampling.topP === 0.9),
      ).toBe(true);
    }
    // The page reader's summary and the fetch inside a crawl are the engine's work for that crawl:
    // marked with it, and no agent step (T) or agent tool call (c_t) of their own.
    expect(runs.flatMap((r) => r.calls).filter((c) => c.role === "reader").length).toBeGreaterThan(0);
    for (const run of runs) {
      const crawls = new Set(run.toolCalls.filter((t) => t.tool === "crawl_page").map((t) => t.callId));
      const readers = run.calls.filter((c) => c.role === "reader");
      const fetches = run.toolCalls.filter((t) => t.tool === "fetch_page");
      for (const c of readers) expect(crawls.has(c.toolCallId ?? "")).toBe(true);
      for (const t of fetches) expect(crawls.has(t.parentCallId ?? "")).toBe(true);
      expect(run.calls.filter((c) => c.role === "searcher" && c.toolCallId)).toEqual([]);
      const steps = runSteps(run);
      expect(steps.flatMap((s) => s.calls).every((c) => c.role === "searcher")).toBe(true);
      expect(steps.flatMap((s) => s.toolCalls).some((t) => t.tool === "fetch_page")).toBe(false);
      expect(steps.map((s) => s.step)).toEqual([
        ...new Set(run.calls.filter((c) => c.role === "searcher").map((c) => c.step)),
      ]);
    }
    const byRun = new Map<string, RecordedRun>(runs.map((r) => [r.runId, r]));
    for (const record of records) {
      const run = byRun.get(record.runId)!;
      const correct = run.answer!.includes("Topic 2") ? 1 : 0;
      expect(record).toMatchObject({ reward: correct, components: { correct, formatValid: 1 } });
      expect(seedOf({ messages: [], seed: run.calls[0]!.sampling.seed } as ChatBody) % 2).toBe(1 - correct);
    }
    expect(new Set(records.map((r) => r.reward))).toEqual(new Set([0, 1]));
    // Rewards are kept: scoring again asks no judge (the script allows no 5th judge call).
    await cli(world, ["train", "reward", "ro", "--reward", "smtl", "--advantage", "rloo", "--dapo"]);
  }, 180_000);

  it("a rollout that fails by the agent's behaviour is a recorded sample: the group keeps its size and the command exits 0", async () => {
    // The first rollout to plan answers with JSON of no use: the error budget (1) is spent before
    // any tool call, and the run fails NO_RESEARCH — a trajectory of the policy like any other.
    let failing: number | undefined;
    const override = (role: string, body: ChatBody): Reply | undefined => {
      if (role !== "smtl-plan") return undefined;
      failing ??= seedOf(body);
      return seedOf(body) === failing ? { kind: "text", text: '{"plan": "none"}' } : undefined;
    };
    world = await startResearchWorld({
      override,
      expectCalls: { "smtl-plan": 2, "smtl-step": 2, reader: [1, 2], "answer-judge": 1 },
    });
    writeFileSync(join(world.home, "q.jsonl"), `${JSON.stringify(ROWS[0])}\n`);
    const args = ["train", "rollouts", "q.jsonl", "--strategy", "smtl", "--group", "2", "--out", "ro"];
    const run = await cli(world, [...args, "--option", "errorBudget=1", "--date", "2026-03-01", "--json"]);
    const summary = JSON.parse(run.stdout) as { failed: number; failures: { recorded: boolean }[] };
    expect(summary.failed).toBe(1);
    expect(summary.failures).toEqual([expect.objectContaining({ recorded: true })]);
    const runs = lines(join(world.home, "ro", "runs.jsonl")).map((r) => recordedRunSchema.parse(r));
    expect(runs.map((r) => r.status).sort()).toEqual(["completed", "failed"]);
    const failed = runs.find((r) => r.status === "failed")!;
    expect(failed.report).toBeNull();
    // the refused plan is on its call, so every reward with a format term sees it
    expect(failed.calls.filter((c) => c.role === "searcher").map((c) => c.formatErrors.length)).toEqual([1]);
    // scored with the group: SMTL's 0 for a format violation, no judge asked for it
    await cli(world, ["train", "reward", "ro", "--reward", "smtl", "--advantage", "rloo"]);
    const records = lines(join(world.home, "ro", "rewards-smtl.jsonl")).map((r) =>
      rewardRecordSchema.parse(r),
    );
    expect(records).toHaveLength(2);
    expect(records.find((r) => r.runId === failed.runId)).toMatchObject({
      reward: 0,
      components: { correct: null, formatValid: 0 },
    });
  }, 120_000);

  it("a refused reply reaches every training file as a violation: reward 0, masked in rl, absent from sft", async () => {
    // Each rollout's first step is refused by the protocol (an answer citing evidence never
    // retrieved, which a schema cannot see); the next steps go on.
    const refusedSeeds = new Set<number>();
    const override = (role: string, body: ChatBody): Reply | undefined => {
      if (role !== "smtl-step" || refusedSeeds.has(seedOf(body))) return undefined;
      refusedSeeds.add(seedOf(body));
      const unseen = { goal: "G1", evidence: ["E99"] };
      const answer = {
        text: "Topic 2 [E99]",
        citations: ["E99"],
        verification: [unseen, { ...unseen, goal: "G2" }],
      };
      return { kind: "text", text: JSON.stringify({ thought: "done", calls: [], answer }) };
    };
    world = await startResearchWorld({
      override,
      expectCalls: { "smtl-plan": 2, "smtl-step": 6, reader: [1, 2] },
    });
    writeFileSync(join(world.home, "q.jsonl"), `${JSON.stringify(ROWS[0])}\n`);
    const args = ["train", "rollouts", "q.jsonl", "--strategy", "smtl", "--group", "2", "--out", "ro"];
    await cli(world, [...args, "--date", "2026-03-01"]);
    const runs = lines(join(world.home, "ro", "runs.jsonl")).map((r) => recordedRunSchema.parse(r));
    const refused = runs.flatMap((r) => r.calls.filter((c) => c.formatErrors.length > 0));
    expect(runs.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect(refused).toHaveLength(2);
    // SMTL's 0 on a format violation, without asking the judge (the script allows none).
    await cli(world, ["train", "reward", "ro", "--reward", "smtl"]);
    const records = lines(join(world.home, "ro", "rewards-smtl.jsonl")).map((r) =>
      rewardRecordSchema.parse(r),
    );
    expect(records.map((r) => [r.reward, r.components.formatValid])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    const out = (format: string) => {
      const file = join(world!.home, `out.${format}.jsonl`);
      return cli(world!, ["train", "export", "ro", "--format", format, "--out", file]).then(() =>
        lines(file),
      );
    };
    const rl = (await out("rl")).map((l) => rlRecordSchema.parse(l));
    expect(
      rl
        .filter((r) => r.loss_mask === 0)
        .map((r) => r.call_id)
        .sort(),
    ).toEqual(refused.map((c) => c.callId).sort());
    for (const r of rl) expect(r.loss_mask).toBe((r.format_errors ?? []).length > 0 ? 0 : 1);
    const sft = (await out("sft")).map((l) => sftRecordSchema.parse(l));
    const taught = new Set(sft.map((r) => JSON.stringify(r.messages.at(-1)!.content)));
    for (const c of refused) expect(taught.has(JSON.stringify(c.completion))).toBe(false);
    expect(sft.length).toBe(
      runs.reduce((n, r) => n + r.calls.filter((c) => !c.error && !c.formatErrors.length).length, 0),
    );
  }, 120_000);

  it("warp: 2 × 3 rollouts with three forced expansions, the warp reward with GRPO, four exports", async () => {
    // An odd seed writes each section from its first passage only: fewer citations, a lower score.
    const override = (role: string, body: ChatBody): Reply | undefined => {
      if (role === "warp-deepen") return warpDeepenAnswer(userText(body), 1, { warpExpansions: 99 });
      if (role !== "warp-write" || seedOf(body) % 2 === 0) return undefined;
      const user = userText(body).replace(/(<passages>\n[^\n]*)\n[\s\S]*?\n<\/passages>/, "$1\n</passages>");
      return warpWriteAnswer(user);
    };
    world = await startResearchWorld({
      override,
      expectCalls: {
        "warp-search": 6 * (1 + 3 + 2 * 3),
        "warp-init": 6,
        "warp-write": 6 * (3 + 2 * 3),
        "warp-deepen": 6 * 3,
        reader: [9, 6 * 9],
        "pipeline-judge": 6,
      },
    });
    writeRows(world);
    await cli(world, [
      "train",
      "rollouts",
      "q.jsonl",
      "--strategy",
      "warp",
      "--group",
      "3",
      "--concurrency",
      "3",
      "--out",
      "ro",
      "--force-expand",
      "3",
      "--option",
      "scorer=grounding",
      "--date",
      "2026-03-01",
    ]);
    const { runs, records } = await rewardAndExport(world, "warp", "grpo");
    // WARP pruning: each run's SFT ends at one relabelled TERMINATE, on the unforced request.
    const sft = lines(join(world.home, "out-sft.jsonl")).map((l) => sftRecordSchema.parse(l));
    const terminates = sft.filter((r) => r.messages.at(-1)!.content === '{"name":"terminate"}');
    expect(terminates).toHaveLength(runs.length);
    for (const r of sft) expect(r.messages[0]!.content).not.toContain("You must expand");
    // --no-prune: the forced trajectories as recorded, every accepted call, no TERMINATE.
    await cli(world, ["train", "export", "ro", "--format", "sft", "--no-prune", "--out", "raw.jsonl"]);
    const raw = lines(join(world.home, "raw.jsonl")).map((l) => sftRecordSchema.parse(l));
    expect(raw.length).toBe(
      runs.reduce((n, r) => n + r.calls.filter((c) => !c.error && !c.formatErrors.length).length, 0),
    );
    expect(raw.some((r) => r.messages.at(-1)!.content === '{"name":"terminate"}')).toBe(false);
    for (const run of runs) {
      expect(run.drafts.map((d) => d.expansions)).toEqual([0, 1, 2, 3]);
      expect(run.drafts.every((d) => typeof d.score === "number")).toBe(true);
      expect(run.trajectory.filter((a) => a.action === "expand")).toHaveLength(3);
      const policy = run.calls.filter((c) => c.role !== "reader");
      expect(policy.every((c) => c.sampling.temperature === 0.7 && c.sampling.topP === 0.8)).toBe(true);
    }
    for (const record of records) {
      expect(record.components).toMatchObject({ pipeline: record.reward });
      expect(record.details).toHaveProperty("steps");
    }
    const high = (r: RewardRecord) => (byRunSeed(runs, r.runId) % 2 === 0 ? 1 : 0);
    const ordered = [...records].sort((a, b) => high(b) - high(a));
    expect(ordered[0]!.reward).toBeGreaterThan(ordered.at(-1)!.reward);
  }, 240_000);

  it("refuses bad input with a coded error before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    writeFileSync(join(world.home, "bad.jsonl"), `${JSON.stringify(ROWS[0])}\n{"id": "q2", "answer": "x"}\n`);
    const bad = await cli(world, ["train", "rollouts", "bad.jsonl", "--strategy", "smtl", "--out", "ro"], 2);
    expect(bad.stderr).toMatch(/INPUT_INVALID.*bad\.jsonl:2/);
    writeRows(world);
    const strategy = await cli(
      world,
      ["train", "rollouts", "q.jsonl", "--strategy", "nope", "--out", "ro"],
      2,
    );
    expect(strategy.stderr).toContain('unknown strategy "nope"');
    const option = await cli(
      world,
      ["train", "rollouts", "q.jsonl", "--strategy", "smtl", "--out", "ro", "--option", "depth=3"],
      2,
    );
    expect(option.stderr).toContain("depth is not an option of the smtl strategy");
    const reward = await cli(world, ["train", "reward", "ro", "--reward", "bleu"], 2);
    expect(reward.stderr).toContain('unknown reward "bleu"');
    const format = await cli(world, ["train", "export", "ro", "--format", "csv", "--out", "x"], 2);
    expect(format.stderr).toContain('unknown export format "csv"');
  }, 60_000);
});

function byRunSeed(runs: readonly RecordedRun[], runId: string): number {
  return runs.find((r) => r.runId === runId)!.calls[0]!.sampling.seed!;
}
