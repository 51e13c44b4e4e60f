/**
 * Heading hierarchy check: skipped levels (`##` followed by `####`), empty sections (a heading
 * with neither body text nor sub-headings) and duplicate titles among sibling sections. Headings
 * as the Markdown reader finds them (ATX and setext); headings inside code blocks are ignored.
 */

import { readMarkdown } from "../../core/markdown.ts";

/** One heading of a document. */
export interface HeadingInfo {
  level: number;
  title: string;
  /** 1-based line. */
  line: number;
}

/** What is wrong with a heading. */
export type HeadingProblemKind = "skipped-level" | "empty-section" | "duplicate-title";

/** One problem. */
export interface HeadingProblem {
  kind: HeadingProblemKind;
  /** 1-based line of the heading. */
  line: number;
  title: string;
  message: string;
}

/** The verdict on a document's headings. */
export interface HeadingsCheckResult {
  headings: HeadingInfo[];
  problems: HeadingProblem[];
  skippedLevels: number;
  emptySections: number;
  duplicateTitles: number;
  /** All problems. */
  errors: number;
}

/** A title compared case-insensitively, without numbering ("2.1 ") or trailing punctuation. */
export function normalizeTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(
      /^(?:\d+(?:\.\d+)*\.?|[ivxlc]+\.|第[一二三四五六七八九十百0-9]+[章节部分]、?|[一二三四五六七八九十]+、)\s*/u,
      "",
    )
    .replace(/[\s\p{P}]+$/u, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Checks the heading hierarchy of `markdown`. */
export function checkHeadings(markdown: string): HeadingsCheckResult {
  const headings: HeadingInfo[] = [];
  /** Whether each heading has content before the next heading. */
  const hasBody: boolean[] = [];
  const doc = readMarkdown(markdown);
  const found = doc.headings;
  let next = 0;
  for (const { text, line } of doc.lines) {
    const heading = found[next];
    if (heading && line >= heading.line) {
      if (line === heading.line) {
        headings.push({ level: heading.level, title: heading.title, line });
        hasBody.push(false);
      }
      if (line === heading.endLine) next++;
    } else if (headings.length > 0 && text.trim() !== "") {
      hasBody[hasBody.length - 1] = true;
    }
  }

  const problems: HeadingProblem[] = [];
  const problem = (kind: HeadingProblemKind, h: HeadingInfo, message: string) => {
    problems.push({ kind, line: h.line, title: h.title, message });
  };
  /** Sibling titles seen, keyed by the index of the parent heading (-1 for top level). */
  const siblings = new Map<number, Set<string>>();
  const stack: number[] = [];
  headings.forEach((h, i) => {
    const previous = headings[i - 1];
    if (previous && h.level > previous.level + 1) {
      problem("skipped-level", h, `level ${h.level} heading directly under level ${previous.level}`);
    }
    const next = headings[i + 1];
    const hasChildren = next !== undefined && next.level > h.level;
    if (!hasBody[i] && !hasChildren) problem("empty-section", h, "section has no content");
    while (stack.length && headings[stack.at(-1)!]!.level >= h.level) stack.pop();
    const parent = stack.at(-1) ?? -1;
    const seen = siblings.get(parent) ?? new Set<string>();
    const key = normalizeTitle(h.title);
    if (key !== "" && seen.has(key))
      problem("duplicate-title", h, `duplicate title "${h.title}" among sibling sections`);
    seen.add(key);
    siblings.set(parent, seen);
    stack.push(i);
  });
  const count = (kind: HeadingProblemKind) => problems.filter((p) => p.kind === kind).length;
  return {
    headings,
    problems,
    skippedLevels: count("skipped-level"),
    emptySections: count("empty-section"),
    duplicateTitles: count("duplicate-title"),
    errors: problems.length,
  };
}
