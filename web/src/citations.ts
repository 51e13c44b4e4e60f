/** What a citation's tooltip shows, from the report's JSON bundle. */

import { readableText } from "../../src/core/markdown-text.ts";
import type { BundleClaims } from "./claim-marks.ts";

/** The parts of the JSON bundle the UI reads. */
export interface ReportBundle {
  /** The report's language code. */
  language?: string;
  references: { number: number; sourceId: string; title: string; locator: string }[];
  evidenceByNumber: Record<string, string[]>;
  evidence: { id: string; text: string; sourceId: string }[];
  checks?: { groundedShare?: number | null };
  /** The claim check (null or absent when verification was off). */
  claims?: BundleClaims | null;
}

/** One citation's tooltip. */
export interface CitationInfo {
  title: string;
  excerpt: string;
  /** The source's http(s) URL, when it has one. */
  url: string | null;
  locator: string;
}

/** The tooltip of each citation number; the excerpts as a reader sees them, not their Markdown. */
export function citationIndex(bundle: ReportBundle, maxChars = 600): Map<number, CitationInfo> {
  const text = new Map(bundle.evidence.map((e) => [e.id, readableText(e.text)]));
  const out = new Map<number, CitationInfo>();
  for (const r of bundle.references) {
    const ids = bundle.evidenceByNumber[String(r.number)] ?? [];
    const excerpt = ids
      .map((id) => text.get(id))
      .filter((t): t is string => Boolean(t))
      .join(" … ");
    out.set(r.number, {
      title: r.title,
      excerpt: excerpt.length > maxChars ? `${excerpt.slice(0, maxChars)}…` : excerpt,
      url: /^https?:\/\//i.test(r.locator) ? r.locator : null,
      locator: r.locator,
    });
  }
  return out;
}
