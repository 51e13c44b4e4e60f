/**
 * Living reports in the loopback research world (strict scripted model): a refresh after a
 * cited page changed rewrites exactly the sections citing it (the others byte for byte) and its
 * diff lists the claims and citations that changed; a refresh with no change makes no model
 * call at all and says so; a vanished page's claims go and every citation still resolves; a
 * second refresh asks with the validators the first one kept; bad input fails before any call.
 */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  pagesOfSection,
  perSourceSections,
  REFRESH_PARENT,
  sectionsCiting,
} from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, searchPages, startResearchWorld } from "../../test/research/world.ts";
import { isDossierError } from "../core/errors.ts";
import { extractClaims } from "../eval/claims/extract.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { refresh } from "./refresh.ts";
import type { ReportDiff } from "./refresh-diff.ts";
import { citationProblems } from "./refresh-report.ts";
import { splitSections } from "./refresh-sections.ts";
import { GONE_TEXT } from "./refresh-strategy.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
});

const PARENT = REFRESH_PARENT;

async function finishedRun() {
  world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
  dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
  const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
  expect(parent.status).toBe("completed");
  const sections = splitSections(parent.report!.body);
  /** The one page the section `title` cites, checked to be cited by no other section. */
  const pageOnlyIn = (title: string) => {
    const [page, ...more] = pagesOfSection(parent.report!, sections, title);
    expect(more).toEqual([]);
    expect(sectionsCiting(parent.report!, sections, page!)).toEqual([title]);
    return page!;
  };
  return { world, dossier, parent, sections, pageOnlyIn };
}

const readDiff = (path: string) => JSON.parse(readFileSync(path, "utf8")) as ReportDiff;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (error) {
    return isDossierError(error) ? error.code : String(error);
  }
}

describe("dossier refresh", () => {
  it("rewrites nothing when no cited page changed: no model call, the same report, an empty diff", async () => {
    const { world, dossier, parent } = await finishedRun();
    world.script.expectCalls(PARENT); // not one call more
    const searched = world.search.requests.length;
    const fetched = world.pageAnswers.length;
    const result = await refresh(dossier, parent.runId);
    // The run kept its pages' validators (ETag, Last-Modified): the first refresh asks each cited
    // page conditionally, and each answers 304.
    expect(world.pageAnswers.slice(fetched).map((a) => a.status)).toEqual([304, 304, 304, 304]);
    // The run's searches were asked again (past the tool cache), each once.
    const queries = new Set(
      (await dossier.runs.events(parent.runId)).flatMap((e) =>
        e.type === "tool-start" && e.tool === "web_search" ? [(e.args as { query: string }).query] : [],
      ),
    );
    expect(world.search.requests.slice(searched).map((r) => String(r.query.q))).toEqual([...queries]);
    expect(result).toMatchObject({
      status: "completed",
      refreshOf: parent.runId,
      version: 2,
      sectionsChanged: [],
    });
    expect(result.message).toBe("version 2: no cited evidence changed, nothing was rewritten");
    expect(result.report!.body).toBe(parent.report!.body);
    expect(result.diffPaths.map((p) => p.split("/").at(-1))).toEqual([
      `${result.runId}.diff.md`,
      `${result.runId}.diff.json`,
    ]);
    const diff = readDiff(result.diffPaths[1]!);
    expect(diff).toMatchObject({
      sectionsChanged: [],
      claimsAdded: [],
      claimsRemoved: [],
      citationsAdded: [],
      citationsRemoved: [],
    });
    expect(diff.pages.map((p) => p.state)).toEqual(["unchanged", "unchanged", "unchanged", "unchanged"]);
    expect(readFileSync(result.diffPaths[0]!, "utf8")).toContain("no section was rewritten");
    // A child run of its own, naming the run it refreshes.
    const child = await dossier.runs.get(result.runId);
    expect(child.strategy).toBe("refresh");
    expect(child.options.strategyOptions).toMatchObject({ refreshOf: parent.runId, version: 2 });
  });

  it("rewrites exactly the sections citing a changed page; the others stay byte for byte", async () => {
    const { world, dossier, parent, sections, pageOnlyIn } = await finishedRun();
    const page = pageOnlyIn("Comparison");
    const citing = ["Comparison"];
    world.changePages([page]);
    world.script.expectCalls({ ...PARENT, section: 4 + citing.length });
    const result = await refresh(dossier, parent.runId);
    expect(result.sectionsChanged).toEqual(citing);
    const after = splitSections(result.report!.body);
    expect(after.map((s) => s.title)).toEqual(sections.map((s) => s.title));
    for (const [i, s] of sections.entries()) {
      if (citing.includes(s.title)) expect(after[i]!.text).not.toBe(s.text);
      else expect(after[i]!.text).toBe(s.text);
    }
    expect(after.find((s) => s.title === "Comparison")!.text).toContain(
      `revised growth of ${21 + page} percent in 2026`,
    );
    // The diff lists the claims that changed and no citation (the page keeps its number).
    const diff = readDiff(result.diffPaths[1]!);
    expect(diff.sectionsChanged).toEqual(["Comparison"]);
    expect(diff.claimsAdded).toEqual([
      `Reviewers of topic ${page} now report that durability concerns were settled by field tests.`,
    ]);
    const oldClaims = extractClaims(sections.find((s) => s.title === "Comparison")!.text).map((c) => c.text);
    expect(oldClaims.length).toBeGreaterThan(0);
    expect(diff.claimsRemoved).toEqual(oldClaims);
    expect(diff).toMatchObject({ citationsAdded: [], citationsRemoved: [] });
    expect(diff.pages.find((p) => p.url.endsWith(`/page/${page}`))!.state).toBe("changed");
    const redline = readFileSync(result.diffPaths[0]!, "utf8");
    expect(redline).toContain("## Comparison (rewritten)");
    expect(redline).toContain(`- ~~${oldClaims[0]}~~`);
    expect(redline).toContain(`- **${diff.claimsAdded[0]}**`);
    // Every citation resolves to evidence the new run holds (and recorded as its events).
    const report = result.report!;
    const held = {
      getSource: (id: string) => report.sources.find((s) => s.id === id),
      getEvidence: (id: string) => report.evidence.find((e) => e.id === id),
    };
    expect(citationProblems(report.body, report.references, report.evidenceByNumber, held)).toEqual([]);
    const events = await dossier.runs.events(result.runId);
    const added = new Set(
      events.flatMap((e) => (e.type === "source-add" ? [(e.source as { id: string }).id] : [])),
    );
    for (const ref of report.references) expect(added.has(ref.sourceId)).toBe(true);
  });

  it("drops a vanished page's claims and citation; a later refresh asks with the kept validators", async () => {
    const { world, dossier, parent, sections, pageOnlyIn } = await finishedRun();
    const page = pageOnlyIn("Outlook");
    world.removePages([page]);
    world.script.expectCalls(PARENT); // the section has no evidence left: nothing to write with
    const v2 = await refresh(dossier, parent.runId, { formats: ["md", "json"] });
    expect(v2.sectionsChanged).toEqual(["Outlook"]);
    const outlook = splitSections(v2.report!.body).find((s) => s.title === "Outlook")!;
    expect(outlook.text).toContain(GONE_TEXT);
    const report = v2.report!;
    const held = {
      getSource: (id: string) => report.sources.find((s) => s.id === id),
      getEvidence: (id: string) => report.evidence.find((e) => e.id === id),
    };
    expect(citationProblems(report.body, report.references, report.evidenceByNumber, held)).toEqual([]);
    expect(report.sources.some((s) => s.url?.endsWith(`/page/${page}`))).toBe(false);
    expect(report.references.some((r) => r.locator.endsWith(`/page/${page}`))).toBe(false);
    const diff = readDiff(v2.diffPaths[1]!);
    expect(diff.citationsRemoved.map((c) => c.locator.replace(/^.*(\/page\/\d+)$/, "$1"))).toEqual([
      `/page/${page}`,
    ]);
    expect(diff.claimsAdded).toEqual([]);
    const oldClaims = extractClaims(sections.find((s) => s.title === "Outlook")!.text).map((c) => c.text);
    expect(oldClaims.length).toBeGreaterThan(0);
    expect(diff.claimsRemoved).toEqual(oldClaims);
    // The next refresh (of version 2, from its JSON bundle) sends If-None-Match: 304s only.
    const before = world.pageAnswers.length;
    const v3 = await refresh(dossier, v2.runId);
    expect(v3).toMatchObject({ version: 3, refreshOf: v2.runId, sectionsChanged: [] });
    expect(world.pageAnswers.slice(before).map((a) => a.status)).toEqual([304, 304, 304]);
    expect(v3.report!.body).toBe(v2.report!.body);
  });

  it("gives a section the new page a search behind it now finds, and cites it", async () => {
    const { world, dossier, parent, sections } = await finishedRun();
    // One of the run's searches now finds page 15 (which the run never had) first, then four of its
    // usual five: the sections citing one of those four are the ones it stands behind.
    const queries = [
      ...new Set(
        (await dossier.runs.events(parent.runId)).flatMap((e) =>
          e.type === "tool-start" && e.tool === "web_search" ? [(e.args as { query: string }).query] : [],
        ),
      ),
    ];
    const servedBy = (q: string) =>
      sections
        .filter((s) =>
          searchPages(q)
            .slice(0, 4)
            .some((p) => sectionsCiting(parent.report!, sections, p).includes(s.title)),
        )
        .map((s) => s.title);
    const query = queries.find((q) => servedBy(q).length > 0 && servedBy(q).length < 4)!;
    expect(query).toBeDefined();
    expect(searchPages(query)).not.toContain(15);
    world.addSearchResults((q) => q === query, [15]);
    world.script.expectCalls({ ...PARENT, section: 4 + servedBy(query).length });
    const result = await refresh(dossier, parent.runId);
    expect(result.sectionsChanged).toEqual(servedBy(query));
    expect(world.script.prompts.section.at(-1)).toContain("Page 15");
    expect(result.report!.references.map((r) => r.locator.replace(/^.*(\/page\/\d+)$/, "$1"))).toContain(
      "/page/15",
    );
    const diff = readDiff(result.diffPaths[1]!);
    expect(
      diff.pages.filter((p) => p.state === "new").map((p) => p.url.replace(/^.*(\/page\/\d+)$/, "$1")),
    ).toEqual(["/page/15"]);
    const report = result.report!;
    const held = {
      getSource: (id: string) => report.sources.find((s) => s.id === id),
      getEvidence: (id: string) => report.evidence.find((e) => e.id === id),
    };
    expect(citationProblems(report.body, report.references, report.evidenceByNumber, held)).toEqual([]);
  });

  it("resumes a cancelled refresh in another Dossier, which reads the parent from the store again", async () => {
    const { world, dossier: first, parent, pageOnlyIn } = await finishedRun();
    world.changePages([pageOnlyIn("Comparison")]);
    world.script.expectCalls({ ...PARENT, section: 5 });
    const { startRefresh } = await import("./refresh.ts");
    let cancel = () => {};
    const { handle } = await startRefresh(first, parent.runId, {
      onEvent: (e) => {
        if (e.type === "tool-start") cancel();
      },
    });
    cancel = () => handle.cancel("test");
    expect((await handle.done).status).toBe("cancelled");
    const second = createDossier({ config: world.config, cwd: world.home, env: {} });
    try {
      const resumed = await second.runs.resume(handle.runId).done;
      expect(resumed.status).toBe("completed");
      const events = await second.runs.events(handle.runId);
      const diff = events.filter((e) => e.type === "report-diff").at(-1);
      expect(diff).toMatchObject({ refreshOf: parent.runId, version: 2, sectionsChanged: ["Comparison"] });
    } finally {
      await second.close();
    }
  });

  it("keeps a rewritten section's untrusted text as text", async () => {
    let hostile = false;
    world = await startResearchWorld({
      subtasks: 4,
      expectCalls: PARENT,
      override: (role, body) => {
        const answer = perSourceSections(role, body);
        if (!hostile || !answer || answer.kind !== "text") return answer;
        return { ...answer, text: `<script>alert(1)</script> [Click](javascript:alert(1)) ${answer.text}` };
      },
    });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
    hostile = true;
    const sections = splitSections(parent.report!.body);
    world.changePages(pagesOfSection(parent.report!, sections, "Comparison"));
    world.script.expectCalls({ ...PARENT, section: 5 });
    const result = await refresh(dossier, parent.runId);
    const comparison = splitSections(result.report!.body).find((s) => s.title === "Comparison")!.text;
    expect(comparison).not.toContain("<script>");
    expect(comparison).toContain("&lt;script>alert(1)&lt;/script>");
    expect(comparison).not.toContain("](javascript:"); // the link is text: [Click]\\(javascript:…)
  });

  it("refuses an unknown run, an unfinished run and bad options before any model call", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    expect(await codeOf(refresh(dossier, "no-such-run"))).toBe("NOT_FOUND");
    expect(await codeOf(refresh(dossier, " "))).toBe("INPUT_INVALID");
    expect(await codeOf(refresh(dossier, "x", { maxSearches: 99 }))).toBe("INPUT_INVALID");
    expect(await codeOf(refresh(dossier, "x", { strategy: "graph" } as never))).toBe("INPUT_INVALID");
    const createdAt = new Date().toISOString();
    await dossier.store.runs.create({
      id: "r-running",
      query: "q",
      strategy: "minddr",
      options: {},
      createdAt,
    });
    expect(await codeOf(refresh(dossier, "r-running"))).toBe("CONFLICT");
    expect(world.model.requests).toHaveLength(0);
  });
});
