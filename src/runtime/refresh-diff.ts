/**
 * The diff between a report and its refreshed version: the sections rewritten, the claims (cited
 * sentences, compared without their citation numbers) added and removed in them, the citations
 * (references, by locator) added and removed, and each checked page's state — as JSON, and as a
 * Markdown redline (each rewritten section's removed sentences struck through, added ones in
 * bold). Sections left alone are byte-identical and contribute nothing.
 *
 * Claims and section titles are what a reader sees, not Markdown source: a claim is its sentence's
 * readable text ({@link readableText}: `\*\*Clover Station Duo:\*\*` reads `Clover Station Duo:`,
 * an escaped `\[6\]` reads `[6]`), its own citation markers left out (the citations added and
 * removed say which sources moved), and claims are compared on that text, so a rewrite that only
 * changed how a sentence was escaped or emphasised adds and removes nothing. The redline escapes
 * the few characters that would be read as its own markup.
 */

import type { Reference } from "../core/citations.ts";
import { readableText } from "../core/markdown-text.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";
import { stripControlChars } from "../core/terminal-text.ts";
import { extractClaims } from "../eval/claims/extract.ts";
import type { PageState } from "./refresh-pages.ts";
import type { BodySection } from "./refresh-sections.ts";

/** One rewritten section in the diff. */
export interface SectionDiff {
  index: number;
  title: string;
  claimsAdded: string[];
  claimsRemoved: string[];
}

/** A citation in the diff. */
export interface CitationDiff {
  number: number;
  title: string;
  locator: string;
}

/** The JSON diff of a refresh (`<runId>.diff.json`). */
export interface ReportDiff {
  format: "dossier-report-diff";
  runId: string;
  refreshOf: string;
  version: number;
  /** Titles of the sections rewritten, in report order. */
  sectionsChanged: string[];
  sections: SectionDiff[];
  claimsAdded: string[];
  claimsRemoved: string[];
  citationsAdded: CitationDiff[];
  citationsRemoved: CitationDiff[];
  pages: { url: string; state: PageState; etag?: string; lastModified?: string }[];
}

/** What the diff compares. */
export interface DiffInput {
  runId: string;
  refreshOf: string;
  version: number;
  before: readonly BodySection[];
  /** The refreshed text of each rewritten section, by index. */
  rewritten: ReadonlyMap<number, string>;
  referencesBefore: readonly Reference[];
  referencesAfter: readonly Reference[];
  pages: ReportDiff["pages"];
}

/** The readable text of each cited sentence of `text`, in order, each once. */
const claimTexts = (text: string) => [
  ...new Set(extractClaims(text).flatMap((c) => readableText(c.text) || [])),
];

/** Computes the diff. */
export function reportDiff(input: DiffInput): ReportDiff {
  const sections: SectionDiff[] = [];
  for (const s of input.before) {
    const after = input.rewritten.get(s.index);
    if (after === undefined) continue;
    const old = claimTexts(s.text);
    const now = claimTexts(after);
    sections.push({
      index: s.index,
      title: readableText(s.title),
      claimsAdded: now.filter((c) => !old.includes(c)),
      claimsRemoved: old.filter((c) => !now.includes(c)),
    });
  }
  const cite = (r: Reference): CitationDiff => ({ number: r.number, title: r.title, locator: r.locator });
  const before = new Set(input.referencesBefore.map((r) => r.locator));
  const after = new Set(input.referencesAfter.map((r) => r.locator));
  return {
    format: "dossier-report-diff",
    runId: input.runId,
    refreshOf: input.refreshOf,
    version: input.version,
    sectionsChanged: sections.map((s) => s.title),
    sections,
    claimsAdded: sections.flatMap((s) => s.claimsAdded),
    claimsRemoved: sections.flatMap((s) => s.claimsRemoved),
    citationsAdded: input.referencesAfter.filter((r) => !before.has(r.locator)).map(cite),
    citationsRemoved: input.referencesBefore.filter((r) => !after.has(r.locator)).map(cite),
    pages: input.pages,
  };
}

const flat = (s: string) => stripControlChars(s).replace(/\s+/g, " ").trim();
/** Plain text as redline text: the characters its markup uses (`*`, `~`, `_`, `` ` ``, `\`) escaped. */
const plain = (s: string) => flat(s).replace(/[\\*~_`]/g, "\\$&");

/** The Markdown redline of a diff (`<runId>.diff.md`). */
export function renderRedline(diff: ReportDiff, title: string): string {
  const lines = [
    `# Changes in version ${diff.version}: ${plain(readableText(title))}`,
    "",
    `Refresh of run ${diff.refreshOf} (this run: ${diff.runId}).`,
    "",
  ];
  if (diff.sections.length === 0) {
    lines.push("No cited evidence changed: no section was rewritten.", "");
  }
  for (const s of diff.sections) {
    lines.push(`## ${plain(s.title)} (rewritten)`, "");
    for (const c of s.claimsRemoved) lines.push(`- ~~${plain(c)}~~`);
    for (const c of s.claimsAdded) lines.push(`- **${plain(c)}**`);
    if (!s.claimsRemoved.length && !s.claimsAdded.length) lines.push("- (wording only; no claim changed)");
    lines.push("");
  }
  const cites = (label: string, list: CitationDiff[]) => {
    if (!list.length) return;
    lines.push(`## ${label}`, "", ...list.map((c) => `- [${c.number}] ${plain(c.title)} <${c.locator}>`), "");
  };
  cites("Citations added", diff.citationsAdded);
  cites("Citations removed", diff.citationsRemoved);
  const moved = diff.pages.filter((p) => p.state !== "unchanged");
  if (moved.length) lines.push("## Pages", "", ...moved.map((p) => `- ${p.state}: <${p.url}>`), "");
  return safeMarkdown(`${lines.join("\n").trimEnd()}\n`);
}
