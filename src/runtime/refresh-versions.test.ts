/**
 * Each version of a report is written by one run (strict scripted model, loopback world): two
 * refreshes of one run started at once give one version 2 and one CONFLICT; a refresh while
 * another is under way, and a refresh of an older version, are refused before any model call
 * (the message names the refresh under way, or the latest version); a cancelled refresh keeps
 * its number, so the next one writes the version after it.
 */

import { afterEach, describe, expect, it } from "vitest";
import { pagesOfSection, perSourceSections, REFRESH_PARENT } from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { type DossierError, isDossierError } from "../core/errors.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { refresh, startRefresh } from "./refresh.ts";
import { splitSections } from "./refresh-sections.ts";
import { versionsOf } from "./refresh-versions.ts";

let world: ResearchWorld | undefined;
const dossiers: Dossier[] = [];
afterEach(async () => {
  for (const d of dossiers.splice(0)) await d.close();
  await world?.close();
  world = undefined;
});

const PARENT = REFRESH_PARENT;

async function finishedRun() {
  world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
  const dossier = open(world);
  const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
  expect(parent.status).toBe("completed");
  const comparison = pagesOfSection(parent.report!, splitSections(parent.report!.body), "Comparison");
  return { world, dossier, parent, comparison };
}

function open(w: ResearchWorld): Dossier {
  const dossier = createDossier({ config: w.config, cwd: w.home, env: {} });
  dossiers.push(dossier);
  return dossier;
}

async function errorOf(p: Promise<unknown>): Promise<DossierError> {
  try {
    await p;
  } catch (error) {
    if (isDossierError(error)) return error;
    throw error;
  }
  throw new Error("expected a DossierError, the promise resolved");
}

describe("refresh versions", () => {
  it("gives two refreshes of one run started at once one version 2 and one CONFLICT, before its model call", async () => {
    const { world, dossier, parent, comparison } = await finishedRun();
    world.changePages(comparison);
    // One rewrite of the changed section: the refused refresh asks the model nothing.
    world.script.expectCalls({ ...PARENT, section: 5 });
    const [a, b] = await Promise.allSettled([refresh(dossier, parent.runId), refresh(dossier, parent.runId)]);
    const done = [a, b].flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const refused = [a, b].flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
    expect(done.map((r) => [r.status, r.version])).toEqual([["completed", 2]]);
    expect(refused).toHaveLength(1);
    expect(isDossierError(refused[0]) && refused[0].code).toBe("CONFLICT");
    const versions = await versionsOf(dossier.runs, await dossier.runs.get(parent.runId));
    expect(versions.map((v) => v.version)).toEqual([1, 2]);
  });

  it("holds a version against a refresh started by another Dossier on the same store at once", async () => {
    const { world, dossier, parent } = await finishedRun();
    world.script.expectCalls(PARENT); // nothing changed: no refresh calls the model
    const other = open(world);
    const settled = await Promise.allSettled([refresh(dossier, parent.runId), refresh(other, parent.runId)]);
    const versions = await versionsOf(dossier.runs, await dossier.runs.get(parent.runId));
    const numbers = versions.map((v) => v.version);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    const reason = settled.find((s) => s.status === "rejected")?.reason as unknown;
    expect(isDossierError(reason) && reason.code).toBe("CONFLICT");
  });

  it("refuses a refresh while one is under way, naming it, before any model call", async () => {
    const { world, dossier, parent } = await finishedRun();
    world.script.expectCalls(PARENT);
    let second: Promise<DossierError> | undefined;
    const { handle, version } = await startRefresh(dossier, parent.runId, {
      onEvent: (e) => {
        if (e.type === "tool-start" && !second) second = errorOf(startRefresh(dossier, parent.runId));
      },
    });
    expect(version).toBe(2);
    expect((await handle.done).status).toBe("completed");
    const error = await second!;
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain(`run ${handle.runId} is already writing version 2`);
  });

  it("refuses to refresh an older version, naming the latest; a cancelled refresh keeps its number", async () => {
    const { world, dossier, parent } = await finishedRun();
    world.script.expectCalls(PARENT);
    const v2 = await refresh(dossier, parent.runId);
    expect(v2.version).toBe(2);
    const older = await errorOf(refresh(dossier, parent.runId));
    expect(older.code).toBe("CONFLICT");
    expect(older.message).toBe(
      `run ${parent.runId} is version 1 of its report; the latest is version 2 (run ${v2.runId}): refresh that one`,
    );
    // Version 3 cancelled at its first fetch: the next refresh of version 2 writes version 4.
    let cancel = () => {};
    const started = await startRefresh(dossier, v2.runId, {
      onEvent: (e) => {
        if (e.type === "tool-start") cancel();
      },
    });
    cancel = () => started.handle.cancel("test");
    expect(started.version).toBe(3);
    expect((await started.handle.done).status).toBe("cancelled");
    const v4 = await refresh(dossier, v2.runId);
    expect([v4.status, v4.version, v4.refreshOf]).toEqual(["completed", 4, v2.runId]);
    const versions = await versionsOf(dossier.runs, await dossier.runs.get(v4.runId));
    expect(versions.map((v) => [v.version, v.status])).toEqual([
      [1, "completed"],
      [2, "completed"],
      [3, "cancelled"],
      [4, "completed"],
    ]);
    // Every refresh names the report's first run.
    for (const v of versions.slice(1)) {
      const record = await dossier.runs.get(v.runId);
      expect((record.options.strategyOptions as { reportRoot?: string }).reportRoot).toBe(parent.runId);
    }
  });
});
