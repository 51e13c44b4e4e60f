/**
 * `dossier refresh <run>` in the loopback research world with the strict scripted model: after a
 * cited page changed, `--json` prints one line naming the sections rewritten, the version and
 * the diff's paths (the one section citing the page, one writer call); `runs show` lists the
 * versions; `--estimate` runs nothing and sets the refresh beside the first run; an unknown run
 * is NOT_FOUND and a bad flag INPUT_INVALID before any model call.
 */

import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  pagesOfSection,
  perSourceSections,
  REFRESH_PARENT,
  sectionsCiting,
} from "../../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";
import { markdownBody } from "../../runtime/refresh-parent.ts";
import { splitSections } from "../../runtime/refresh-sections.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** `dossier <args>` in the world. */
const dossier = dossierInWorld;

const PARENT = REFRESH_PARENT;

describe("dossier refresh", () => {
  it("rewrites the section citing a changed page, prints the summary line, and runs show lists the versions", async () => {
    world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
    const first = await dossier(
      ["research", "How is topic adoption changing?", "--strategy", "minddr", "--json"],
      world,
    );
    expect(first.code).toBe(0);
    const parentId = JSON.parse(first.stdout.trim().split("\n").at(-1)!).runId as string;

    const estimate = await dossier(["refresh", parentId, "--estimate"], world);
    expect(estimate.code).toBe(0);
    expect(estimate.stdout).toContain(`refresh of    ${parentId} → version 2 (6 sections, 4 cited pages`);
    expect(estimate.stdout).toMatch(/model calls {3}0 – 6\n/);
    expect(estimate.stdout).toMatch(/first run {5}\S+: 19 model calls/);

    // The page the Outlook section cites (and no other section does), read from the report.
    const shownParent = JSON.parse((await dossier(["runs", "show", parentId, "--json"], world)).stdout);
    const md = readFileSync(
      shownParent.report.paths.find((p: string) => p.endsWith(".md")),
      "utf8",
    );
    const report = {
      body: markdownBody(md),
      references: [...md.matchAll(/^(\d+)\. .*<(\S+)>/gm)].map((m) => ({
        number: Number(m[1]),
        locator: m[2]!,
      })),
    };
    const sections = splitSections(report.body);
    const [page] = pagesOfSection(report, sections, "Outlook");
    expect(sectionsCiting(report, sections, page!)).toEqual(["Outlook"]);
    world.changePages([page!]);
    world.script.expectCalls({ ...PARENT, section: 5 });
    const out = await dossier(["refresh", parentId, "--json"], world);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
    const line = JSON.parse(out.stdout);
    expect(line).toMatchObject({
      refreshOf: parentId,
      version: 2,
      status: "completed",
      sectionsChanged: ["Outlook"],
    });
    expect(line.diff.md).toMatch(new RegExp(`${line.runId}\\.diff\\.md$`));
    expect(line.diff.json).toMatch(new RegExp(`${line.runId}\\.diff\\.json$`));
    expect(existsSync(line.diff.md) && existsSync(line.diff.json)).toBe(true);

    world.script.expectCalls({ ...PARENT, section: 5 });
    const again = await dossier(
      ["refresh", line.runId, "--max-tokens", "50000", "--max-tool-calls", "40"],
      world,
    );
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("version 3: no cited evidence changed, nothing was rewritten");

    const shown = await dossier(["runs", "show", parentId], world);
    expect(shown.stdout).toMatch(new RegExp(`version 1 ${parentId} completed .* \\(this run\\)`));
    expect(shown.stdout).toMatch(new RegExp(`version 2 ${line.runId} completed`));
    expect(shown.stdout).toMatch(/version 3 \S+ completed/);
    const json = JSON.parse((await dossier(["runs", "show", line.runId, "--json"], world)).stdout);
    expect(json.versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    expect(json.versions[1]).toMatchObject({ runId: line.runId, refreshOf: parentId });
    expect(json.diff).toEqual({ sectionsChanged: ["Outlook"], paths: [line.diff.md, line.diff.json] });
    const shownV2 = await dossier(["runs", "show", line.runId], world);
    expect(shownV2.stdout).toContain(`diff      ${line.diff.md}, ${line.diff.json} (Outlook)`);
    // The budget flags are the research ones, stored with the refresh run.
    const v3 = JSON.parse((await dossier(["runs", "show", json.versions[2].runId, "--json"], world)).stdout);
    expect(v3.options.budget).toMatchObject({ maxTokens: 50000, maxToolCalls: 40 });
    // Version 2 is no longer the latest: refreshing it, or estimating that, is refused, naming
    // version 3 (no model call).
    for (const args of [["--json"], ["--estimate"]]) {
      const older = await dossier(["refresh", line.runId, ...args], world);
      expect(older.code).not.toBe(0);
      expect(older.stderr).toContain(
        `[CONFLICT]: run ${line.runId} is version 2 of its report; the latest is version 3 (run ${json.versions[2].runId}): refresh that one`,
      );
    }
    // The latest one's estimate names the version a refresh would write.
    const next = await dossier(["refresh", json.versions[2].runId, "--estimate"], world);
    expect(next.stdout).toContain(`refresh of    ${json.versions[2].runId} → version 4 (`);
  });

  it("refuses an unknown run and bad flags before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    const unknown = await dossier(["refresh", "no-such-run", "--json"], world);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("NOT_FOUND");
    const bad = await dossier(["refresh", "no-such-run", "--max-searches", "x"], world);
    expect(bad.stderr).toContain("INPUT_INVALID");
    const format = await dossier(["refresh", "no-such-run", "--format", "rtf"], world);
    expect(format.stderr).toContain("INPUT_INVALID");
    const stdout = await dossier(["refresh", "no-such-run", "--out", "-"], world);
    expect(stdout.stderr).toContain("INPUT_INVALID");
    expect(world.model.requests).toHaveLength(0);
  });
});
