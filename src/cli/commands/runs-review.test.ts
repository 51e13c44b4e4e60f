/**
 * Plan review from the command line, not on a terminal (the offline strategy over a notes folder:
 * no model): `dossier research --review-plan` prints the run id and the plan, leaves the run
 * `awaiting-review` and exits 0; `dossier runs review <id>` shows it (`--json` to edit); an
 * edited plan file that breaks the plan's rules is refused (exit 2) with nothing changed;
 * `--plan` runs exactly the edited plan in this process; `--reject` ends a run cancelled.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type CliOutcome, recordingIo, runCliInProcess } from "../../../test/cli-io.ts";
import type { ReviewPlan } from "../../core/review-plan.ts";
import type { ResearchResult } from "../../runtime/research-handle.ts";
import { askReview } from "./runs-review.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const QUESTION = "How do heat pumps perform in cold climates?";

function project(): string {
  const root = mkdtempSync(join(tmpdir(), "dossier-cli-review-"));
  dirs.push(root);
  mkdirSync(join(root, "notes"));
  writeFileSync(
    join(root, "notes", "defrost.md"),
    "# Defrost\n\nHeat pumps in cold climates run defrost cycles; defrost cycles cost energy.\nDefrost controls cut defrost losses of heat pumps.\n",
  );
  writeFileSync(
    join(root, "notes", "capacity.md"),
    "# Capacity\n\nHeat pump capacity drops in cold climates; capacity ratings compare heat pumps.\nDefrost cycles reduce capacity briefly.\n",
  );
  return root;
}

const dossier = (root: string, args: string[]): Promise<CliOutcome> =>
  runCliInProcess(args, { cwd: root, env: { HOME: root, DOSSIER_HOME: join(root, ".dossier") } });

describe("dossier research --review-plan and dossier runs review (not on a terminal)", () => {
  it("leaves the run awaiting review and exits 0; runs review --plan runs exactly the edited plan", async () => {
    const root = project();
    const started = await dossier(root, ["research", QUESTION, "--docs", "notes", "--review-plan", "--json"]);
    expect(started.code).toBe(0);
    const summary = JSON.parse(started.stdout.trim().split("\n").at(-1)!) as {
      runId: string;
      status: string;
      plan: { kind: string; items: { id: string; title: string }[] };
    };
    expect(summary.status).toBe("awaiting-review");
    expect(summary.plan.kind).toBe("facets");
    const { runId } = summary;

    const shown = await dossier(root, ["runs", "review", runId.slice(-6)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("review    pending until");
    expect(shown.stdout).toContain(`dossier runs review ${runId} --approve`);
    const status = await dossier(root, ["runs", "show", runId, "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      status: "awaiting-review",
      review: { stage: "pending" },
    });

    // The plan as JSON, edited in a file: an unknown id is refused before anything runs.
    const asJson = await dossier(root, ["runs", "review", runId, "--json"]);
    const view = JSON.parse(asJson.stdout) as { plan: { items: { id: string; title: string }[] } };
    writeFileSync(
      join(root, "bad.json"),
      JSON.stringify({ ...view.plan, items: [{ id: "F42", title: "x" }] }),
    );
    const bad = await dossier(root, ["runs", "review", runId, "--plan", "bad.json"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /the edited plan is not valid: items\.0\.id: the proposed plan has no item "F42"/,
    );
    expect(JSON.parse((await dossier(root, ["runs", "show", runId, "--json"])).stdout).status).toBe(
      "awaiting-review",
    );
    const twice = await dossier(root, ["runs", "review", runId, "--approve", "--reject"]);
    expect(twice.code).toBe(2);

    // The edit: the first facet (if any) kept, one added; the run goes on here to its end.
    const kept = view.plan.items.slice(0, 1);
    writeFileSync(
      join(root, "plan.json"),
      JSON.stringify({ plan: { ...view.plan, items: [...kept, { title: "controls" }] } }),
    );
    const ran = await dossier(root, ["runs", "review", runId, "--plan", "plan.json", "--json"]);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout.trim().split("\n").at(-1)!)).toMatchObject({ runId, status: "completed" });
    const events = (
      await dossier(root, ["runs", "events", runId, "--json", "--type", "tool-start,plan-reviewed"])
    ).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; action?: string; args?: { query: string } });
    expect(events.filter((e) => e.type === "plan-reviewed")).toMatchObject([{ action: "edit" }]);
    const searched = events
      .filter((e) => e.type === "tool-start")
      .map((e) => e.args!.query)
      .filter((q) => q !== QUESTION)
      .map((q) => q.slice(QUESTION.length + 1));
    expect(searched).toEqual([...kept.map((i) => i.title), "controls"]);
  }, 60_000);

  it("prints the plan and how to answer it; --reject ends the run cancelled", async () => {
    const root = project();
    const started = await dossier(root, ["research", QUESTION, "--docs", "notes", "--review-plan"]);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^Plan awaiting review \(run (\S+), offline, \d+ facets\):/m);
    const runId = /Plan awaiting review \(run (\S+),/.exec(started.stdout)![1]!;
    expect(started.stdout).toContain(`Answer it: dossier runs review ${runId} --approve`);
    const rejected = await dossier(root, ["runs", "review", runId, "--reject", "--reason", "too narrow"]);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain("plan rejected; the run is cancelled (plan-rejected)");
    const shown = JSON.parse((await dossier(root, ["runs", "show", runId, "--json"])).stdout);
    expect(shown).toMatchObject({ status: "cancelled", review: { stage: "rejected" } });
    // Answered already: a conflict (exit 1), nothing changes.
    const late = await dossier(root, ["runs", "review", runId, "--approve"]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain("is not awaiting review of its plan (it is cancelled, its plan rejected)");
  }, 60_000);

  it("refuses --review-timeout without --review-plan", async () => {
    const root = project();
    const refused = await dossier(root, ["research", QUESTION, "--docs", "notes", "--review-timeout", "5"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--review-timeout goes with --review-plan");
  });
});

describe("the terminal's review prompt", () => {
  const paused = async (root: string) => {
    const started = await dossier(root, ["research", QUESTION, "--docs", "notes", "--review-plan", "--json"]);
    const summary = JSON.parse(started.stdout.trim().split("\n").at(-1)!) as { runId: string };
    const { createDossier } = await import("../../runtime/dossier.ts");
    const d = createDossier({ env: { DOSSIER_HOME: join(root, ".dossier") }, cwd: root });
    const plan = (await d.runs.plan(summary.runId))!.plan;
    await d.close();
    return { runId: summary.runId, plan };
  };
  const lines = (...text: string[]) => {
    const input = new PassThrough();
    input.end(`${text.join("\n")}\n`);
    return input;
  };
  const resultOf = (runId: string, plan: ReviewPlan) =>
    ({ runId, plan, record: { strategy: "offline" } }) as unknown as ResearchResult;

  it("asks again after an unknown answer or a bad file, then takes an edited file", async () => {
    const root = project();
    const { runId, plan } = await paused(root);
    writeFileSync(join(root, "bad.json"), JSON.stringify({ items: [{ id: "F42", title: "x" }] }));
    writeFileSync(join(root, "good.json"), JSON.stringify({ items: [{ title: "controls" }] }));
    const io = recordingIo({ cwd: root });
    const answer = await askReview(
      io,
      resultOf(runId, plan),
      lines("maybe", "f missing.json", "f bad.json", "f good.json"),
    );
    expect(answer).toEqual({ action: "edit", plan: { items: [{ title: "controls" }] } });
    expect(io.stderr).toContain("answer a, e, f <file>, r or l");
    expect(io.stderr).toContain("cannot read the plan file missing.json");
    expect(io.stderr).toContain('the proposed plan has no item "F42"');
  }, 60_000);

  it("edits the plan in $EDITOR, rejects with a reason, or leaves it for later", async () => {
    const root = project();
    const { runId, plan } = await paused(root);
    // An editor that keeps the first item only and adds one.
    const script = join(root, "edit.mjs");
    writeFileSync(
      script,
      'import { readFileSync, writeFileSync } from "node:fs"; const f = process.argv[2]; const p = JSON.parse(readFileSync(f, "utf8")); p.items = [...p.items.slice(0, 1), { title: "noise" }]; writeFileSync(f, JSON.stringify(p));',
    );
    const io = recordingIo({ cwd: root, env: { EDITOR: `"${process.execPath}" "${script}"` } });
    const edited = await askReview(io, resultOf(runId, plan), lines("e"));
    expect(edited).toMatchObject({
      action: "edit",
      plan: {
        items: [...plan.items.slice(0, 1).map((i) => ({ id: i.id, title: i.title })), { title: "noise" }],
      },
    });
    expect(await askReview(io, resultOf(runId, plan), lines("r", "too narrow"))).toEqual({
      action: "reject",
      reason: "too narrow",
    });
    expect(await askReview(io, resultOf(runId, plan), lines("l"))).toBeNull();
  }, 60_000);
});
