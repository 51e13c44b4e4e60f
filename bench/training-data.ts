/**
 * What the training files hold when the policy misbehaves: group rollouts through the CLI
 * (`dossier train rollouts | reward | export`) in the loopback research world, with a scripted
 * policy that answers every other call of a rollout with a malformed action (text that is no
 * action), and figures read from the files the commands wrote:
 *
 * - smtl (JSON protocol, short-answer mode): 2 questions × 3 rollouts; every other `smtl-step`
 *   reply of a rollout is malformed (the first, the third …): text that is no JSON, or a step with
 *   neither tool calls nor an answer (MALFORMED_ACTION), by the rollout's seed;
 * - warp with 2 forced expansions (drafts scored by grounding): 1 question × 2 rollouts; every
 *   other WRITE reply of a rollout is malformed (it is re-asked), and the valid WRITEs of level-1
 *   and level-3 sections open with an unsupported sentence, so each rollout's best draft is the one
 *   after its first expansion, and its second expansion comes after the cut.
 *
 * Printed per strategy: the malformed replies the script sent and how many the recorded calls
 * carry as format errors, the runs recorded and the share the reward calls format-valid, the mean
 * reward and the runs rewarded above 0 although they sent malformed replies, the rows of each
 * export, the rl rows masked (`loss_mask` 0) and the malformed replies exported as training
 * signal, and for warp the deepening decisions the sft file teaches (EXPAND on a forced prompt,
 * TERMINATE). It only uses what the CLI writes, so the same script measures an older checkout.
 *
 * Run: node bench/training-data.ts [--json]
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCliInProcess } from "../test/cli-io.ts";
import type { Reply } from "../test/fake-openai/types.ts";
import type { ChatBody } from "../test/research/model-script.ts";
import { systemText, userText } from "../test/research/replies.ts";
import { warpDeepenAnswer, warpWriteAnswer } from "../test/research/warp-answers.ts";
import { startResearchWorld } from "../test/research/world.ts";

/**
 * The malformed replies: text that is no JSON (a rollout with an odd seed), and JSON that parses
 * but breaks the protocol (an even seed; smtl: a step with neither tool calls nor an answer,
 * MALFORMED_ACTION; warp: a WRITE citing a passage it was never given).
 */
const MALFORMED = {
  "smtl-step": [
    "I should read the second page again before I answer anything.",
    JSON.stringify({ thought: "I will look at the sources once more.", calls: [] }),
  ],
  "warp-write": [
    "Here is the section you asked for, in my own words, without any JSON around it.",
    JSON.stringify({
      name: "write",
      content: "The measured figures moved clearly over the period the sources cover, as reported [E999].",
    }),
  ],
} as const;
const MALFORMED_TEXTS = new Set<string>(Object.values(MALFORMED).flat());
type Misbehaving = keyof typeof MALFORMED;

const seedOf = (body: ChatBody) => (body as ChatBody & { seed?: number }).seed ?? 0;
/** Replies sent per rollout (seed) and role, and the malformed ones. */
const sent = new Map<string, number>();
const malformedBySeed = new Map<number, number>();

function override(role: string, body: ChatBody): Reply | undefined {
  // warp's forced decisions always expand (two expansions per rollout).
  if (role === "warp-deepen") return warpDeepenAnswer(userText(body), 1, { warpExpansions: 99 });
  if (!(role in MALFORMED)) return undefined;
  const key = `${seedOf(body)}:${role}`;
  const n = sent.get(key) ?? 0;
  sent.set(key, n + 1);
  if (n % 2 !== 0) return role === "warp-write" ? groundedLater(userText(body)) : undefined;
  malformedBySeed.set(seedOf(body), (malformedBySeed.get(seedOf(body)) ?? 0) + 1);
  // One kind per rollout: an even seed breaks the protocol, an odd one writes no JSON.
  const texts = MALFORMED[role as Misbehaving];
  return { kind: "text", text: texts[(seedOf(body) + 1) % 2]! };
}

/** A WRITE of a level-3 section (written after the second expansion). */
const LEVEL_3 = /Instruction: write section-\d+\.\d+\.\d+ "/;

/**
 * A valid WRITE; a level-1 or level-3 section opens with a sentence its passage does not support,
 * so the draft after the first expansion (level-2 sections, all supported) is the best-grounded:
 * each rollout's cut is there, and the second expansion and its sections come after it.
 */
function groundedLater(user: string): Reply {
  const reply = warpWriteAnswer(user) as { text: string };
  if (!/Instruction: write section-\d+ "/.test(user) && !LEVEL_3.test(user)) return reply as Reply;
  const value = JSON.parse(reply.text) as { content: string };
  const id = /\[(E\d+)\]/.exec(value.content)?.[1];
  return {
    kind: "text",
    text: JSON.stringify({
      ...value,
      content: `Zebras cross the frozen savanna every winter [${id}]. ${value.content}`,
    }),
  };
}

type Json = Record<string, unknown>;
const lines = (path: string): Json[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Json];
          } catch {
            return [];
          }
        })
    : [];

interface Call {
  role: string;
  completion: string;
  formatErrors?: string[];
  sampling?: { seed?: number };
  messages: { role: string; content: string }[];
}
interface Run {
  runId: string;
  status?: string;
  calls: Call[];
}
interface SftLine {
  messages: { role: string; content: string }[];
}

async function main() {
  const world = await startResearchWorld({ override });
  const home = world.home;
  const env = {
    HOME: home,
    DOSSIER_HOME: home,
    DOSSIER_MODEL: "openai-compatible:fake-model",
    DOSSIER_BASE_URL: world.model.url,
    DOSSIER_API_KEY: "sk-test",
    DOSSIER_SEARCH: "searxng",
    SEARXNG_URL: world.search.baseUrl("searxng"),
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
  };
  const cli = async (args: string[]) => {
    const run = await runCliInProcess(args, { cwd: home, env });
    return { code: run.code, out: `${run.stdout}${run.stderr}` };
  };
  writeFileSync(
    join(home, "smtl.jsonl"),
    [
      { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
      { id: "q2", prompt: "How did battery costs and adoption change?", answer: "Topic 2" },
    ]
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(""),
  );
  writeFileSync(
    join(home, "warp.jsonl"),
    `${JSON.stringify({ id: "w1", prompt: "How did battery costs and adoption change?" })}\n`,
  );
  const plans = {
    smtl: ["train", "rollouts", "smtl.jsonl", "--strategy", "smtl", "--group", "3", "--out", "smtl"],
    warp: [
      "train",
      "rollouts",
      "warp.jsonl",
      "--strategy",
      "warp",
      "--group",
      "2",
      "--out",
      "warp",
      "--force-expand",
      "2",
      "--option",
      "scorer=grounding",
    ],
  };
  const table: Record<string, Record<string, string | number>> = {};
  const codes: string[] = [];
  for (const strategy of ["smtl", "warp"] as const) {
    const planned = strategy === "smtl" ? 6 : 2;
    const before = new Map(malformedBySeed);
    const rollouts = await cli([...plans[strategy], "--concurrency", "1", "--date", "2026-03-01"]);
    const reward = await cli(["train", "reward", strategy, "--reward", strategy, "--advantage", "grpo"]);
    const exported: Record<string, Json[]> = {};
    for (const format of ["sft", "rl", "dpo"]) {
      const file = join(home, `${strategy}.${format}.jsonl`);
      const r = await cli(["train", "export", strategy, "--format", format, "--out", file]);
      codes.push(`export ${strategy} ${format}: exit ${r.code}`);
      exported[format] = lines(file);
    }
    codes.push(`rollouts ${strategy}: exit ${rollouts.code}`, `reward ${strategy}: exit ${reward.code}`);
    const runs = lines(join(home, strategy, "runs.jsonl")) as unknown as Run[];
    const rewards = lines(join(home, strategy, `rewards-${strategy}.jsonl`));
    const malformedOf = (run: Run) => {
      const seed = run.calls[0]?.sampling?.seed ?? -1;
      return (malformedBySeed.get(seed) ?? 0) - (before.get(seed) ?? 0);
    };
    const sentMalformed = [...malformedBySeed].reduce((n, [s, k]) => n + k - (before.get(s) ?? 0), 0);
    const recordedViolations = runs.reduce(
      (n, r) => n + r.calls.filter((c) => (c.formatErrors ?? []).length > 0).length,
      0,
    );
    const rewardOf = new Map(rewards.map((r) => [String(r.runId), r]));
    const formatValid = rewards.filter(
      (r) => (r.components as Json | undefined)?.formatValid === 1 || strategy === "warp",
    ).length;
    const sft = exported.sft as unknown as SftLine[];
    const rl = exported.rl!;
    const lastOf = (l: SftLine) => l.messages.at(-1)?.content ?? "";
    const deciding = sft.filter((l) =>
      systemText({ messages: l.messages } as never).includes("You decide how to deepen"),
    );
    table[strategy] = {
      "rollouts planned": planned,
      "runs recorded (failed ones among them)": `${runs.length} (${runs.filter((r) => r.status === "failed").length})`,
      "malformed replies sent": sentMalformed,
      "…recorded as format errors on their calls": recordedViolations,
      "runs the reward calls format-valid":
        strategy === "smtl" ? `${formatValid} of ${rewards.length}` : "n/a (no format term)",
      "mean reward": rewards.length
        ? (rewards.reduce((a, r) => a + Number(r.reward), 0) / rewards.length).toFixed(4)
        : "-",
      "runs with malformed replies rewarded > 0 (smtl: SMTL gives 0)": runs.filter(
        (r) => malformedOf(r) > 0 && Number(rewardOf.get(r.runId)?.reward ?? 0) > 0,
      ).length,
      "sft rows": sft.length,
      "…teaching a malformed reply": sft.filter((l) => MALFORMED_TEXTS.has(lastOf(l))).length,
      "rl rows": rl.length,
      "…masked (loss_mask 0)": rl.filter((l) => l.loss_mask === 0).length,
      "…malformed reply unmasked": rl.filter(
        (l) => MALFORMED_TEXTS.has(String(l.completion)) && l.loss_mask !== 0,
      ).length,
      "…of which advantage > 0": rl.filter(
        (l) => MALFORMED_TEXTS.has(String(l.completion)) && l.loss_mask !== 0 && Number(l.advantage) > 0,
      ).length,
      "dpo rows": exported.dpo!.length,
      ...(strategy === "warp"
        ? {
            "sft deepening decisions: EXPAND on a forced prompt": deciding.filter((l) =>
              systemText({ messages: l.messages } as never).includes("You must expand"),
            ).length,
            "sft deepening decisions: EXPAND unforced": deciding.filter(
              (l) =>
                !systemText({ messages: l.messages } as never).includes("You must expand") &&
                lastOf(l).includes('"expand"'),
            ).length,
            "sft deepening decisions: TERMINATE": deciding.filter((l) => lastOf(l).includes('"terminate"'))
              .length,
            "sft rows writing a section after the best draft": sft.filter((l) =>
              l.messages.some((m) => m.role === "user" && LEVEL_3.test(m.content)),
            ).length,
            "rl rows relabelled TERMINATE": rl.filter((l) => l.relabelled === true).length,
          }
        : {}),
    };
  }
  await world.close();
  rmSync(home, { recursive: true, force: true });
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ table, codes }));
    return;
  }
  const metrics = [...new Set(Object.values(table).flatMap((t) => Object.keys(t)))];
  const width = Math.max(...metrics.map((m) => m.length));
  console.log(`${"".padEnd(width)}  ${"smtl".padStart(10)}  ${"warp".padStart(10)}`);
  for (const m of metrics)
    console.log(
      `${m.padEnd(width)}  ${String(table.smtl?.[m] ?? "").padStart(10)}  ${String(table.warp?.[m] ?? "").padStart(10)}`,
    );
  console.log(`\n${codes.join("; ")}`);
}

const scratch = mkdtempSync(join(tmpdir(), "dossier-bench-training-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
await main();
