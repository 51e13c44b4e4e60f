/**
 * Section answers for refresh tests and benchmarks: section N of a report quotes the passages of
 * the N-th source of its evidence block, so the sections of a minddr report cite different pages
 * and a changed page touches only the sections citing it. A section shown fewer sources (a
 * refresh's rewrite, given its own) quotes the first passage of each.
 */

import type { Reply } from "../fake-openai/types.ts";
import type { CallExpectations } from "./call-expectations.ts";
import type { ChatBody, ScriptRole } from "./model-script.ts";
import { userText } from "./replies.ts";

/** The passages of an evidence block; an id listed only as an alias of others (`(its text is in E7)`) is none. */
const passagesOf = (block: string) =>
  [...block.matchAll(/^\[(E\d+)\] ([^\n]+)$/gm)].filter(
    ([, , text]) => !text!.startsWith("(its text is in "),
  );

/** Section N quoting the first two passages of source block N of its evidence. */
export function sectionPerSourceAnswer(user: string): Reply {
  const n = Number(/Write section (\d+)/.exec(user)?.[1] ?? "1");
  const block = user.slice(user.lastIndexOf("<evidence>"), user.lastIndexOf("</evidence>"));
  const sources = block.split(/^Source: /m).slice(1);
  const chosen = n >= 1 ? sources[n - 1] : undefined;
  const passages = chosen
    ? passagesOf(chosen).slice(0, 2)
    : sources.flatMap((s) => passagesOf(s).slice(0, 1));
  const text = passages
    .map(([, id, excerpt]) => `${excerpt!.replace(/^… /, "").replace(/ ?…$/, "")} [${id}]`)
    .join(" ");
  return { kind: "text", text };
}

/** The script override that gives every section writer {@link sectionPerSourceAnswer}. */
export function perSourceSections(role: ScriptRole, body: ChatBody): Reply | undefined {
  return role === "section" ? sectionPerSourceAnswer(userText(body)) : undefined;
}

/** What the refresh helpers read of a report. */
interface CitedReport {
  body: string;
  references: readonly { number: number; locator: string }[];
}

/** The fake page numbers (`/page/N`) a report section cites. */
export function pagesOfSection(
  report: CitedReport,
  sections: readonly { title: string; numbers: number[] }[],
  title: string,
): number[] {
  const section = sections.find((s) => s.title === title);
  if (!section) throw new Error(`no section "${title}"`);
  return section.numbers.flatMap((n) => {
    const locator = report.references.find((r) => r.number === n)?.locator ?? "";
    const page = /\/page\/(\d+)$/.exec(locator)?.[1];
    return page ? [Number(page)] : [];
  });
}

/** Titles of the sections citing fake page `page`. */
export function sectionsCiting(
  report: CitedReport,
  sections: readonly { title: string; numbers: number[] }[],
  page: number,
): string[] {
  return sections.filter((s) => pagesOfSection(report, sections, s.title).includes(page)).map((s) => s.title);
}

/**
 * The model calls of the first run refresh tests start from: minddr with four agents, each reading
 * one page, and four sections (with {@link perSourceSections}, each citing its own page).
 */
export const REFRESH_PARENT: CallExpectations<ScriptRole> = {
  planner: 1,
  "search-step": 4,
  reader: 4,
  "sub-report": 4,
  outline: 1,
  section: 4,
  coherence: 1,
};

/** The text of Markdown-looking page `n`: a numbered bold lead, an underscore word, a `#` line, `[5]`. */
export function markdownPageText(n: number): string {
  return [
    `1. **Topic ${n}** grew by ${10 + n} percent in 2025, according to the annual survey [5].`,
    `Analysts credit topic_${n} with *lower costs* and wider adoption across regions [${n}].`,
    `# Outlook for topic ${n}: critics point to open questions about durability and supply.`,
  ].join("\n\n");
}

/**
 * Twenty pages whose text the page fetcher escapes as Markdown (`1\.`, `\*\*`, `\[5\]`, `\_`,
 * `\#`); a search finds eight of them, from the first number in its query (1 when none).
 */
export const MARKDOWN_PAGES = {
  pages: Array.from({ length: 20 }, (_, i) => ({ title: `Page ${i + 1}`, text: markdownPageText(i + 1) })),
  rank: (query: string) => {
    const k = (Number(/\d+/.exec(query)?.[0] ?? "1") - 1) % 20;
    return Array.from({ length: 8 }, (_, i) => ((k + i) % 20) + 1);
  },
};

/**
 * A search engine's snippet of a page: its text on one line, cut at both ends (mid-word, with
 * `…`), running across its paragraphs, unescaped.
 */
export function cutSnippet(text: string, n: number): string {
  const line = text.replace(/\s+/g, " ");
  return `…${line.slice(3 + (n % 5), 170)}…`;
}

/** A result URL with a tracking parameter naming the query's number: one page, a URL per query. */
export function trackedResultUrl(url: string, query: string): string {
  return `${url}?utm_source=q${/\d+/.exec(query)?.[0] ?? "0"}`;
}
