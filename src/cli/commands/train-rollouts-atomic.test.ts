/**
 * Atomic-skill rollouts through the CLI in the loopback research world: a teacher folder of two
 * forced-expansion warp rollouts, then `train rollouts <teacher> --atomic deepen|write|search`,
 * `train reward --reward warp-atomic` and `train export`. The scripted policy answers a deepening
 * decision by its sampling seed — no valid action, TERMINATE or EXPAND — so each group's rewards
 * follow from the seeds, and are checked against the atomic reward computed by hand. Bad input
 * is refused before any model call (the script allows none).
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import type { Reply } from "../../../test/fake-openai/types.ts";
import type { ChatBody } from "../../../test/research/model-script.ts";
import { systemText, userText } from "../../../test/research/replies.ts";
import { warpDeepenAnswer, warpWriteAnswer } from "../../../test/research/warp-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { grpoAdvantages } from "../../train/advantages/grpo.ts";
import { teacherStates } from "../../train/atomic/teacher-states.ts";
import { rlRecordSchema } from "../../train/export/rl.ts";
import { type RecordedRun, recordedRunSchema } from "../../train/recorded-run.ts";
import { rolloutSeed } from "../../train/rollouts/rollout-plan.ts";
import { rewardRecordSchema } from "../../train/score/score-runs.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ROW = { id: "q1", prompt: "How did battery costs and adoption change?" };
const seedOf = (body: ChatBody) => (body as ChatBody & { seed?: number }).seed ?? 0;
const lines = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);

/** A sampled decision by its seed: a multiple of 3 is no answer, an even seed TERMINATE, else EXPAND. */
function decisionOf(seed: number): "none" | "terminate" | "expand" {
  if (seed % 3 === 0) return "none";
  return seed % 2 === 0 ? "terminate" : "expand";
}

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

async function cli(w: ResearchWorld, args: string[], code = 0) {
  const run = await runCliInProcess(args, { cwd: w.home, env: envOf(w) });
  if (run.code !== code)
    throw new Error(`dossier ${args.join(" ")} exited ${run.code}\n${run.stdout}\n${run.stderr}`);
  return run;
}

describe("dossier train rollouts --atomic", () => {
  it("samples G decisions, writes and searches from each teacher state, scored by warp-atomic and exported", async () => {
    const override = (role: string, body: ChatBody): Reply | undefined => {
      // A top-level section opens with a sentence its passage does not support: the first draft is
      // the least grounded, so each teacher's cut comes after its expansions (decisions to learn).
      if (role === "warp-write" && /Instruction: write section-\d+ "/.test(userText(body))) {
        const value = JSON.parse((warpWriteAnswer(userText(body)) as { text: string }).text) as {
          content: string;
        };
        const id = /\[(E\d+)\]/.exec(value.content)?.[1];
        return {
          kind: "text",
          text: JSON.stringify({
            ...value,
            content: `Zebras cross the frozen savanna every winter [${id}]. ${value.content}`,
          }),
        };
      }
      if (role !== "warp-deepen") return undefined;
      // The teacher is forced; a sample is asked the unforced request.
      if (systemText(body).includes("You must expand"))
        return warpDeepenAnswer(userText(body), 1, { warpExpansions: 9 });
      const decision = decisionOf(seedOf(body));
      if (decision === "none") return { kind: "text", text: "I would rather not decide." };
      return decision === "terminate"
        ? { kind: "text", text: '{"name": "terminate"}' }
        : warpDeepenAnswer(userText(body), 1, { warpExpansions: 9 });
    };
    world = await startResearchWorld({ override });
    const w = world;
    // Expectations count every call of the test (each setting below gives the totals so far).
    const teacherCalls = {
      "warp-search": 16,
      "warp-init": 2,
      "warp-write": 14,
      "warp-deepen": 4,
      reader: [1, 28] as [number, number],
    };
    w.script.expectCalls(teacherCalls);
    writeFileSync(join(w.home, "q.jsonl"), `${JSON.stringify(ROW)}\n`);
    await cli(w, [
      "train",
      "rollouts",
      "q.jsonl",
      "--strategy",
      "warp",
      "--group",
      "2",
      "--out",
      "teacher",
      "--force-expand",
      "2",
      "--option",
      "scorer=grounding",
      "--date",
      "2026-03-01",
    ]);
    const teachers = lines(join(w.home, "teacher", "runs.jsonl")).map((r) => recordedRunSchema.parse(r));
    const deepen = teacherStates(teachers, "deepen").states;
    const writes = teacherStates(teachers, "write").states;
    const searches = teacherStates(teachers, "search").states;
    expect(deepen.some((s) => s.reference.decision === "expand")).toBe(true);
    // Each teacher's pruned decisions: EXPAND before its cut, TERMINATE at it (the relabelled one).
    for (const t of teachers) {
      const own = deepen.filter((s) => s.teacher.runId === t.runId);
      expect(own.at(-1)!.reference).toEqual({ decision: "terminate" });
      expect(own.slice(0, -1).every((s) => s.reference.decision === "expand")).toBe(true);
      for (const s of own) expect(s.request.messages[0]!.content).not.toContain("You must expand");
    }

    // Bad input is refused before any model call (the script allows none now).
    w.script.expectCalls(teacherCalls);
    const bad = [
      [["--atomic", "nope"], /--atomic must be one of initialize, search, write, deepen/],
      [["--atomic", "deepen", "--force-expand", "3"], /--force-expand applies to whole rollouts/],
      [["--atomic", "deepen", "--strategy", "smtl"], /--strategy/],
    ] as const;
    for (const [flags, message] of bad) {
      const refused = await cli(w, ["train", "rollouts", "teacher", ...flags, "--out", "at"], 2);
      expect(refused.stderr).toMatch(message);
    }
    const notTeacher = await cli(w, ["train", "rollouts", "q.jsonl", "--atomic", "deepen", "--out", "at"], 1);
    expect(notTeacher.stderr).toMatch(/not a rollouts folder/);

    // deepen: G = 4 from each decision state.
    const G = 4;
    w.script.expectCalls({ ...teacherCalls, "warp-deepen": 4 + deepen.length * G });
    const sampled = await cli(w, [
      "train",
      "rollouts",
      "teacher",
      "--atomic",
      "deepen",
      "--group",
      String(G),
      "--out",
      "at",
      "--json",
    ]);
    const seeds = deepen.flatMap((s) => Array.from({ length: G }, (_, i) => rolloutSeed(0, s.key, i)));
    const none = seeds.filter((s) => decisionOf(s) === "none").length;
    expect(JSON.parse(sampled.stdout)).toMatchObject({
      action: "deepen",
      states: deepen.length,
      total: deepen.length * G,
      recorded: deepen.length * G,
      refused: none,
      failures: [],
    });
    const samples = lines(join(w.home, "at", "runs.jsonl")).map((r) => recordedRunSchema.parse(r));
    expect(samples).toHaveLength(deepen.length * G);
    for (const sample of samples) {
      const state = deepen.find((s) => s.key === sample.group!.id)!;
      const [call] = sample.calls;
      // the teacher's request as it was recorded, with a seed of its own and the paper's sampling
      expect(call!.messages).toEqual(state.request.messages);
      expect(call!.sampling).toMatchObject({
        seed: rolloutSeed(0, state.key, sample.group!.index),
        temperature: 0.7,
        topP: 0.8,
      });
      expect(call!.formatErrors.length > 0).toBe(decisionOf(call!.sampling.seed!) === "none");
    }
    // Taken up again: every sample is there, no model call.
    const again = await cli(w, [
      "train",
      "rollouts",
      "teacher",
      "--atomic",
      "deepen",
      "--group",
      String(G),
      "--out",
      "at",
      "--json",
    ]);
    expect(JSON.parse(again.stdout)).toMatchObject({ recorded: 0, before: deepen.length * G });
    const conflict = await cli(
      w,
      [
        "train",
        "rollouts",
        "teacher",
        "--atomic",
        "deepen",
        "--group",
        String(G),
        "--out",
        "at",
        "--temperature",
        "1",
      ],
      1,
    );
    expect(conflict.stderr).toMatch(/CONFLICT[\s\S]*strategy options/);

    // The atomic reward: 0 for no valid action, accuracy against the reference, and an EXPAND's plan.
    await cli(w, ["train", "reward", "at", "--reward", "warp-atomic"]);
    const rewards = lines(join(w.home, "at", "rewards-warp-atomic.jsonl")).map((r) =>
      rewardRecordSchema.parse(r),
    );
    const expected = (run: RecordedRun) => {
      const decision = decisionOf(run.calls[0]!.sampling.seed!);
      if (decision === "none") return 0;
      const right = deepen.find((s) => s.key === run.group!.id)!.reference.decision === decision ? 1 : 0;
      return decision === "terminate" ? right : (right + 1) / 2; // EXPAND: mean of accuracy and plan basics (1)
    };
    for (const r of rewards) {
      const sample = samples.find((s) => s.runId === r.runId)!;
      expect(r.reward).toBe(expected(sample));
      expect(r.components.formatValid).toBe(decisionOf(sample.calls[0]!.sampling.seed!) === "none" ? 0 : 1);
    }
    for (const state of deepen) {
      const group = rewards
        .filter((r) => r.groupId === state.key)
        .sort((a, b) => a.groupIndex! - b.groupIndex!);
      expect(group).toHaveLength(G);
      expect(group.map((r) => r.advantage)).toEqual(grpoAdvantages(group.map((r) => r.reward)));
    }
    expect(new Set(rewards.map((r) => r.reward)).size).toBeGreaterThan(1);
    // The whole-rollout reward is refused on samples, and warp-atomic on whole rollouts.
    expect((await cli(w, ["train", "reward", "at", "--reward", "warp"], 2)).stderr).toMatch(
      /--reward warp-atomic/,
    );
    expect((await cli(w, ["train", "reward", "teacher", "--reward", "warp-atomic"], 2)).stderr).toMatch(
      /atomic-skill samples/,
    );

    // rl: one line per sample, its group the teacher state, a refused reply masked.
    await cli(w, ["train", "export", "at", "--format", "rl", "--out", "at.rl.jsonl"]);
    const rl = lines(join(w.home, "at.rl.jsonl")).map((l) => rlRecordSchema.parse(l));
    expect(rl).toHaveLength(samples.length);
    for (const line of rl) {
      const sample = samples.find((s) => s.runId === line.run_id)!;
      expect(line.group_id).toBe(sample.group!.id);
      expect(line.loss_mask).toBe(sample.calls[0]!.formatErrors.length > 0 ? 0 : 1);
    }

    // write and search: G = 2 each; a search's keywords are searched for its recall.
    w.script.expectCalls({
      ...teacherCalls,
      "warp-deepen": 4 + deepen.length * G,
      "warp-write": 14 + writes.length * 2,
      "warp-search": 16 + searches.length * 2,
    });
    await cli(w, ["train", "rollouts", "teacher", "--atomic", "write", "--group", "2", "--out", "aw"]);
    await cli(w, ["train", "rollouts", "teacher", "--atomic", "search", "--group", "2", "--out", "as"]);
    await cli(w, ["train", "reward", "aw", "--reward", "warp-atomic"]);
    await cli(w, ["train", "reward", "as", "--reward", "warp-atomic"]);
    const written = lines(join(w.home, "aw", "rewards-warp-atomic.jsonl")).map((r) =>
      rewardRecordSchema.parse(r),
    );
    expect(written).toHaveLength(writes.length * 2);
    for (const r of written) {
      expect(r.components).toMatchObject({
        formatValid: 1,
        basic: expect.any(Number),
        citationPrecision: expect.any(Number),
      });
      expect(r.reward).toBeGreaterThan(0);
    }
    const searched = lines(join(w.home, "as", "rewards-warp-atomic.jsonl")).map((r) =>
      rewardRecordSchema.parse(r),
    );
    expect(searched).toHaveLength(searches.length * 2);
    // the scripted searcher asks the same keywords as the teacher did: the teacher's documents again
    for (const r of searched) expect(r.components).toMatchObject({ formatValid: 1, recall: 1 });
  }, 240_000);
});
