/**
 * Finding a report's reference list and the URL behind each citation number. Recognised
 * entry forms (optionally as list items):
 *
 * - `[1] https://example.com/a - Title` and `[1] Title, https://example.com/a` (the
 *   benchmark's raw reports);
 * - `1. Title. <https://example.com/a> (accessed 2026-01-02)` (Dossier's References,
 *   see `renderReferences` in src/core/citations.ts), `1) …`;
 * - `1. [Title](https://example.com/a)`;
 * - `[1]: https://example.com/a "Title"` (Markdown link definitions, anywhere) and footnotes
 *   `[^1]: …`.
 *
 * The list starts after the last heading or stand-alone line named like a reference list
 * (References, Sources, Bibliography, Works Cited, 参考文献, 参考资料, 来源, …, see
 * `isReferencesTitle` in src/core/markdown.ts) that some entry follows; without one, the
 * trailing run of entry lines is taken. Entries without an http(s) URL (local documents) have
 * no URL.
 */

import { readMarkdown } from "../../core/markdown.ts";

/** One reference entry. */
export interface ReferenceEntry {
  number: number;
  /** The http(s) URL, when the entry has one. */
  url?: string;
  /** The entry text without number and URL. */
  title: string;
}

/** A report split into body and references. */
export interface SplitReport {
  /** The text before the reference list, link definitions removed. */
  body: string;
  /** Entries by citation number (a repeated number keeps its first entry). */
  references: Map<number, ReferenceEntry>;
}

const ENTRY_BRACKET = /^\s{0,3}(?:[-*+]\s+)?\[\^?(\d+)\]:?\s*(.*)$/;
const ENTRY_NUMBER = /^\s{0,3}(?:[-*+]\s+)?(\d+)[.)]\s+(.*)$/;
const DEFINITION = /^\s{0,3}\[\^?(\d+)\]:\s*(.*)$/;
const ANGLE_URL = /<(https?:\/\/[^>\s]+)>/i;
const LINK_URL = /\[([^\]]*)\]\((https?:\/\/[^)\s]+)(?:\s+"[^"]*")?\)/i;
const BARE_URL = /https?:\/\/[^\s<>"'\]）]+/i;

/** Trims punctuation that ends a sentence rather than the URL. */
export function trimUrl(url: string): string {
  let out = url.replace(/[.,;:!?。，；：]+$/, "");
  // A closing parenthesis belongs to the URL only when it opened one inside it.
  while (out.endsWith(")") && (out.match(/\(/g)?.length ?? 0) < (out.match(/\)/g)?.length ?? 0)) {
    out = out.slice(0, -1);
  }
  const cut = out.indexOf("#:~:text=");
  return cut >= 0 ? out.slice(0, cut) : out;
}

/** Parses one entry line, or returns null when it is not an entry. */
export function parseReferenceEntry(line: string): ReferenceEntry | null {
  const m = ENTRY_BRACKET.exec(line) ?? ENTRY_NUMBER.exec(line);
  if (!m) return null;
  const number = Number(m[1]);
  let rest = m[2]!.trim();
  let url: string | undefined;
  const angle = ANGLE_URL.exec(rest);
  const link = LINK_URL.exec(rest);
  const bare = BARE_URL.exec(rest);
  if (angle) {
    url = angle[1];
    rest = rest.replace(angle[0], "");
  } else if (link) {
    url = link[2];
    rest = rest.replace(link[0], link[1]!);
  } else if (bare) {
    url = bare[0];
    rest = rest.replace(bare[0], "");
  }
  const title = rest
    .replace(/\((?:local document, )?accessed [^)]*\)/i, "")
    .replace(/^[\s\-–—:|,.]+|[\s\-–—:|,]+$/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return { number, ...(url ? { url: trimUrl(url) } : {}), title };
}

/** Splits a report into its body and its numbered references. */
export function splitReferences(markdown: string): SplitReport {
  const doc = readMarkdown(markdown);
  const lines = doc.lines.map((l) => l.text);
  const references = new Map<number, ReferenceEntry>();
  const add = (entry: ReferenceEntry | null) => {
    if (entry && !references.has(entry.number)) references.set(entry.number, entry);
  };

  let start = -1;
  for (const title of [...doc.referenceTitles].reverse()) {
    if (lines.slice(title.line).some((l) => parseReferenceEntry(l))) {
      start = title.line - 1;
      break;
    }
  }
  let bodyEnd = start;
  if (start >= 0) {
    for (const line of lines.slice(start + 1)) add(parseReferenceEntry(line));
  } else {
    let i = lines.length - 1;
    let first = -1;
    while (i >= 0) {
      const line = lines[i]!;
      if (line.trim() === "") {
        i--;
        continue;
      }
      if (!parseReferenceEntry(line) || !BARE_URL.test(line)) break;
      first = i;
      i--;
    }
    if (first >= 0) {
      for (const line of lines.slice(first)) add(parseReferenceEntry(line));
      bodyEnd = first;
    }
  }
  const bodyLines = bodyEnd >= 0 ? lines.slice(0, bodyEnd) : lines;
  const kept: string[] = [];
  for (const line of bodyLines) {
    const def = DEFINITION.exec(line);
    if (def) add(parseReferenceEntry(line));
    else kept.push(line);
  }
  return { body: kept.join("\n"), references };
}
