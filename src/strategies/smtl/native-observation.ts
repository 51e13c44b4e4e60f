/**
 * What a tool call returns to a checkpoint in SMTL's native protocol, laid out as its released
 * tool servers return it (seed: SMTL's search proxy and crawl server): a search is a Markdown
 * listing — `# Search Summary`, the total, `## Query: '<q>'`, the count, then numbered
 * `[title](link)` entries each followed by its snippet; a page read is `Page 1 [url] Summary:`
 * followed by the reader's JSON (`rationale`, `evidence`, `summary`); a page that could not be
 * read is `Page content not accessible: …`. The user's own documents and scholarly search use
 * the search layout with their locators. No evidence ids are shown: the agent cites by URL.
 */

import type { EvidenceLookup } from "../../core/evidence-registry.ts";
import { sourceLocator } from "../../core/source.ts";
import type { Observation, ObservedResult } from "../../kit/observation.ts";

/** One search's results as the released search server lists them. */
export function searchSummary(query: string, results: readonly ObservedResult[]): string {
  const entries = results.map((r, i) => {
    const date = r.publishedAt ? `\nDate published: ${r.publishedAt}` : "";
    return `${i + 1}. [${oneLine(r.title)}](${r.url})${date}\n${oneLine(r.snippet)}`;
  });
  return [
    "# Search Summary",
    `Total results: ${results.length}`,
    "",
    `## Query: '${oneLine(query)}'`,
    `${results.length} results:`,
    "",
    entries.join("\n\n"),
  ].join("\n");
}

/** A page read as the released crawl server returns it. */
export function crawlSummary(
  url: string,
  reading: { rationale: string; evidence: readonly string[]; summary: string },
): string {
  const json = JSON.stringify(
    { rationale: reading.rationale, evidence: reading.evidence.join("\n\n"), summary: reading.summary },
    null,
    2,
  );
  return `Page 1 [${url}] Summary:\n${json}`;
}

const oneLine = (text: string) => text.replace(/\s+/gu, " ").trim();

/** The observation of one call in the released layout (`query` or `url` from its arguments). */
export function nativeObservation(
  o: Observation,
  call: { tool: string; query?: string; url?: string },
  lookup: EvidenceLookup,
): string {
  if (call.tool === "crawl_page") {
    if (!o.ok || !o.reading) return `Page content not accessible: ${o.error?.message ?? "no content"}`;
    return crawlSummary(call.url ?? o.reading.url, o.reading);
  }
  if (!o.ok) return `Search failed (${o.error?.code ?? "error"}): ${o.error?.message ?? ""}`;
  const results: ObservedResult[] =
    o.results ??
    o.evidence.map((e) => {
      const source = lookup.getSource(e.sourceId);
      return { title: source?.title ?? "", url: source ? sourceLocator(source) : "", snippet: e.text };
    });
  return searchSummary(call.query ?? "", results);
}
