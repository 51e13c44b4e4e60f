/**
 * The `refresh` strategy: a new version of a finished run's report, as a child run. The searches
 * behind the report are asked again and each cited page is checked again (refresh-check.ts,
 * refresh-pages.ts); a page no search of the report's runs ever returned is new; the parent's
 * sources and passages are carried into the child's registry with their provenance (a changed
 * page's old passages are replaced by its current ones, a vanished page is dropped). Only the
 * sections that cite a changed or vanished page, or that a search found a new page for, are
 * rewritten by the writer; every other section is kept byte for byte. The diff is written
 * beside the report (`<runId>.diff.md`, `<runId>.diff.json`) and announced by a report-diff event.
 * The definition that registers it is refresh-definition.ts (this module loads when a refresh runs).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, extname } from "node:path";
import { createOutline, type Outline } from "../core/outline.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";
import {
  type Evidence,
  type EvidenceInput,
  type Source,
  type SourceInput,
  sourceLocator,
} from "../core/source.ts";
import { stripControlChars } from "../core/terminal-text.ts";
import { normalizeUrl } from "../core/url.ts";
import { repairTablesDetailed } from "../eval/checks/tables.ts";
import type { ResearchTools } from "../kit/research-tools.ts";
import type { RunContext } from "../kit/run-context.ts";
import { writeSection } from "../kit/section-writer.ts";
import type { ResearchOutcome } from "../strategies/types.ts";
import { citedExcerpts, searchAgain, unseenUrls } from "./refresh-check.ts";
import type { RefreshOptions } from "./refresh-definition.ts";
import { renderRedline, reportDiff } from "./refresh-diff.ts";
import { checkPage, type PageCheck, readNewPage } from "./refresh-pages.ts";
import type { RefreshParent } from "./refresh-parent.ts";
import { Numbering, numberSection, refreshedReport } from "./refresh-report.ts";
import { type BodySection, sectionContent, withContent } from "./refresh-sections.ts";

/** Text of a section none of whose sources is still there. */
export const GONE_TEXT =
  "The sources this section cited are no longer available; nothing current supports it.";

/** What a refresh returns besides the report. */
export interface RefreshOutcome extends ResearchOutcome {
  refreshOf: string;
  version: number;
  sectionsChanged: string[];
  diffPaths: string[];
}

/** Runs a refresh of `parent` in `ctx`. */
export async function runRefresh(
  ctx: RunContext,
  parent: RefreshParent,
  tools: ResearchTools,
  options: RefreshOptions,
): Promise<RefreshOutcome> {
  const sourceById = new Map(parent.sources.map((s) => [s.id, s]));
  const sourceOfNumber = new Map([...parent.numberOf].map(([sid, n]) => [n, sourceById.get(sid)!]));
  const citedSources = new Map<string, Source>();
  for (const s of parent.sections) {
    for (const n of s.numbers) {
      const src = sourceOfNumber.get(n);
      if (src?.url && src.kind === "web") citedSources.set(src.id, src);
    }
  }

  // 1. The searches behind the report again, as they were asked.
  const searched = await searchAgain(tools, parent.searches, options.maxSearches ?? 8);

  // 2. Each cited page, fetched again (conditionally when validators are known); a passage that
  // was only ever a snippet is looked for in the snippet its search returns now, too.
  const evidenceById = new Map(parent.evidence.map((e) => [e.id, e]));
  const checks = new Map<string, PageCheck>();
  await inBatches([...citedSources.values()], ctx.options.concurrency, async (src) => {
    const n = parent.numberOf.get(src.id)!;
    const cited = (parent.evidenceByNumber[n] ?? []).flatMap((id) => {
      const e = evidenceById.get(id);
      return e && e.sourceId === src.id ? [e] : [];
    });
    const excerpts = citedExcerpts(cited, src.url!, searched);
    checks.set(src.id, await checkPage(tools, src, excerpts, parent.validators.get(src.url!)));
  });
  const state = (sourceId: string | undefined) => (sourceId ? checks.get(sourceId)?.state : undefined);

  // A page no search of the report's runs ever returned, found by a search that still finds
  // pages a section cites, is new evidence for those sections.
  const seen = new Set(parent.seenUrls);
  const newPages = new Map<string, PageCheck>();
  const newForSection = new Map<number, string[]>();
  for (const results of searched.values()) {
    const urls = results.map((x) => normalizeUrl(x.url));
    const served = parent.sections.filter((s) =>
      s.numbers.some((n) => {
        const src = sourceOfNumber.get(n);
        return src?.url !== undefined && urls.includes(normalizeUrl(src.url)) && state(src.id) !== "vanished";
      }),
    );
    if (served.length === 0) continue;
    for (const url of unseenUrls(results, seen).slice(0, 2)) {
      seen.add(normalizeUrl(url));
      const page = await readNewPage(tools, url);
      if (page.state !== "new") continue;
      newPages.set(url, page);
      for (const s of served) newForSection.set(s.index, [...(newForSection.get(s.index) ?? []), url]);
    }
  }

  // 3. The child's registry: sources carried with their provenance, re-checked ones dated now
  // (each recorded as the run's source-add and evidence-add events, so the audit trail and a
  // later refresh read them back).
  const now = new Date(ctx.clock.now()).toISOString();
  const registry = recorded(ctx);
  const childSource = new Map<string, string>();
  for (const s of parent.sources) {
    const check = checks.get(s.id);
    if (check?.state === "vanished") continue;
    const { id: _id, ...rest } = s;
    const fresh = check && check.state !== "unreachable";
    const input = fresh
      ? { ...rest, fetchedAt: now, ...(check.contentHash ? { contentHash: check.contentHash } : {}) }
      : rest;
    childSource.set(s.id, registry.addSource(input).id);
  }
  const childEvidence = new Map<string, string>();
  const evidenceOfSource = new Map<string, string[]>();
  const keep = (childSourceId: string, id: string) =>
    evidenceOfSource.set(childSourceId, [...(evidenceOfSource.get(childSourceId) ?? []), id]);
  for (const e of parent.evidence) {
    const sourceId = childSource.get(e.sourceId);
    if (!sourceId || state(e.sourceId) === "changed") continue;
    const { id: _id, ...rest } = e;
    const added = registry.addEvidence({ ...rest, sourceId });
    childEvidence.set(e.id, added.id);
    keep(sourceId, added.id);
  }
  const addPassages = (sourceId: string, page: PageCheck) => {
    for (const text of page.passages) {
      const added = registry.addEvidence({
        sourceId,
        text,
        query: ctx.query,
        retrievedBy: { tool: "fetch_page", callId: page.callId },
      });
      keep(sourceId, added.id);
    }
  };
  for (const [parentId, check] of checks)
    if (check.state === "changed") addPassages(childSource.get(parentId)!, check);
  const newSource = new Map<string, string>();
  for (const [url, page] of newPages) {
    const source = registry.addSource({
      kind: "web",
      url,
      title: page.title || url,
      fetchedAt: now,
      ...(page.contentHash ? { contentHash: page.contentHash } : {}),
    });
    newSource.set(url, source.id);
    addPassages(source.id, page);
  }

  // 4. The sections whose evidence changed, rewritten; the others kept as they were.
  const stale = (s: BodySection) =>
    newForSection.has(s.index) ||
    s.numbers.some((n) => {
      const st = state(sourceOfNumber.get(n)?.id);
      return st === "changed" || st === "vanished";
    });
  const numbering = new Numbering(
    new Map(
      [...parent.numberOf].flatMap(([sid, n]) => (childSource.has(sid) ? [[childSource.get(sid)!, n]] : [])),
    ),
  );
  const outline = outlineOf(parent.sections);
  const rewritten = new Map<number, string>();
  const evidenceByNumber: Record<number, string[]> = {};
  const addEvidence = (n: number, ids: readonly string[]) => {
    evidenceByNumber[n] = [...new Set([...(evidenceByNumber[n] ?? []), ...ids])];
  };
  let dropped = 0;
  for (const section of parent.sections) {
    if (!stale(section)) {
      for (const n of section.numbers) {
        addEvidence(
          n,
          (parent.evidenceByNumber[n] ?? []).flatMap((id) => childEvidence.get(id) ?? []),
        );
      }
      continue;
    }
    const given = new Set<string>();
    for (const n of section.numbers) {
      const src = sourceOfNumber.get(n);
      const child = src ? childSource.get(src.id) : undefined;
      for (const id of child ? (evidenceOfSource.get(child) ?? []) : []) given.add(id);
    }
    for (const url of newForSection.get(section.index) ?? []) {
      for (const id of evidenceOfSource.get(newSource.get(url)!) ?? []) given.add(id);
    }
    const evidence = [...given].flatMap((id) => ctx.evidence.getEvidence(id) ?? []);
    let content = GONE_TEXT;
    if (evidence.length) {
      const written = await writeSection(ctx, {
        outline,
        reportTitle: parent.title,
        section: { id: String(section.index), title: section.title, plan: planOf(section), children: [] },
        evidence,
        language: parent.language,
      });
      const numbered = numberSection(written.content, written.allowed, ctx.evidence, numbering);
      dropped += numbered.dropped;
      for (const [n, ids] of Object.entries(numbered.evidenceByNumber)) addEvidence(Number(n), ids);
      // Untrusted text stays text: tables repaired, raw HTML escaped, only safe link targets.
      content =
        safeMarkdown(repairTablesDetailed(stripControlChars(numbered.text)).markdown).trim() || GONE_TEXT;
    }
    rewritten.set(section.index, withContent(section, content));
  }
  const body = parent.sections.map((s) => rewritten.get(s.index) ?? s.text).join("");

  // 5. The report, its diff beside it, and the event that says what changed.
  const report = refreshedReport(ctx, {
    title: parent.title,
    outline,
    body,
    numbering,
    evidenceByNumber,
    language: parent.language,
    stopReason: "completed",
    dropped,
  });
  const referencesBefore = [...parent.numberOf].flatMap(([sid, number]) => {
    const s = sourceById.get(sid);
    return s && parent.sections.some((sec) => sec.numbers.includes(number))
      ? [{ number, sourceId: sid, kind: s.kind, title: s.title, locator: sourceLocator(s), accessed: "" }]
      : [];
  });
  const pages = [
    ...[...checks.values()].map((c) => ({ url: c.url, state: c.state, ...c.validators })),
    ...[...newPages.values()].map((c) => ({ url: c.url, state: c.state, ...c.validators })),
  ];
  const diff = reportDiff({
    runId: ctx.runId,
    refreshOf: parent.record.id,
    version: options.version,
    before: parent.sections,
    rewritten,
    referencesBefore,
    referencesAfter: report.references,
    pages,
  });
  const diffPaths = diffPathsOf(ctx);
  for (const path of diffPaths) mkdirSync(dirname(path), { recursive: true });
  writeFileSync(diffPaths[0]!, renderRedline(diff, parent.title));
  writeFileSync(diffPaths[1]!, `${JSON.stringify(diff, null, 2)}\n`);
  ctx.emit({
    type: "report-diff",
    refreshOf: parent.record.id,
    version: options.version,
    sectionsChanged: diff.sectionsChanged,
    claimsAdded: diff.claimsAdded.length,
    claimsRemoved: diff.claimsRemoved.length,
    citationsAdded: diff.citationsAdded.length,
    citationsRemoved: diff.citationsRemoved.length,
    pages,
    paths: diffPaths,
  });
  return {
    stopReason: rewritten.size ? "completed" : "unchanged",
    report: { ...report, stopReason: rewritten.size ? "completed" : "unchanged" },
    refreshOf: parent.record.id,
    version: options.version,
    sectionsChanged: diff.sectionsChanged,
    diffPaths,
  };
}

/** The run's registry, recording what it adds as source-add and evidence-add events. */
function recorded(ctx: RunContext) {
  return {
    addSource(input: SourceInput): Source {
      const { source, added } = ctx.evidence.addSource(input);
      if (added) ctx.emit({ type: "source-add", source });
      return source;
    },
    addEvidence(input: EvidenceInput): Evidence {
      const { evidence, added } = ctx.evidence.addEvidence(input);
      if (added) ctx.emit({ type: "evidence-add", evidence });
      return evidence;
    },
  };
}

/** `<report base>.diff.md` and `.diff.json`, beside the run's report files. */
function diffPathsOf(ctx: RunContext): [string, string] {
  const first = (ctx.options.reportPaths as string[] | undefined)?.[0];
  const base = first ? first.slice(0, first.length - extname(first).length) : `${ctx.runId}`;
  return [`${base}.diff.md`, `${base}.diff.json`];
}

/** The writer's plan for a section: its scope, and what it said before (without citations). */
function planOf(section: BodySection): string {
  const before = sectionContent(section)
    .replace(/\s*\[\d+(?:, \d+)*\](?![(:])/g, "")
    .replace(/\s+/g, " ")
    .slice(0, 1500);
  return `Update this section to the current evidence, keeping its scope. Its earlier text, whose sources have changed: ${before}`;
}

/** The report's outline from its `## ` sections (an empty one when they cannot form one). */
function outlineOf(sections: readonly BodySection[]): Outline {
  const titled = sections.filter((s) => s.index > 0);
  try {
    return createOutline(
      titled.map((s) => ({ title: s.title, plan: "as written" })),
      { minSections: 1, maxSections: 50 },
    );
  } catch {
    return { sections: [] };
  }
}

/** Runs `task` over `items`, `size` at a time. */
async function inBatches<T>(
  items: readonly T[],
  size: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += Math.max(1, size)) {
    await Promise.all(items.slice(i, i + Math.max(1, size)).map(task));
  }
}
