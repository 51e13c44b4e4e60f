/**
 * Citations as the seeds' checkpoints write them: numbers after a claim — `[1]` (SMTL App. D.1)
 * or `<sup>[1]</sup>` (MaMs C.8) — and a closing References section of numbered entries
 * (`[1]. URL - Title`). A number is resolved through its entry's URL to the evidence the run
 * retrieved from that URL; a number without an entry, or whose URL the run never retrieved, stays
 * a bare number (the citation pass drops and counts it). A bare URL in the text cites that page
 * too; a superscript around evidence ids (`<sup>[E4]</sup>`) is unwrapped.
 */

import type { EvidenceLookup } from "../core/evidence-registry.ts";
import { sourceLocator } from "../core/source.ts";

/** The text with its citations resolved. */
export interface UrlCitations {
  /** The body (the References section removed) with resolved numbers as evidence ids. */
  text: string;
  /** Evidence ids cited, in order of first citation. */
  cited: string[];
  /** Numbers cited that resolve to nothing retrieved. */
  unresolved: number[];
}

/** Passages cited under one number at most. */
const PER_CITATION = 3;

const URL_RE = /https?:\/\/[^\s<>()[\]"'`]+/giu;
const REFERENCES_HEADING =
  /^[ \t]*(?:#{1,6}[ \t]*)?\**[ \t]*(?:references|sources|参考文献|参考资料)[ \t]*\**[ \t]*:?[ \t]*$/imu;
const ENTRY = /^[ \t]*(?:[-*][ \t]*)?\[?(\d{1,3})\]?\.?[ \t]*(.*)$/u;
const CITE = /\[(\d{1,3}(?:[ \t]*[,;，][ \t]*\d{1,3})*)\]/gu;

/** A URL as compared: no fragment, no trailing slash or punctuation, lower-case scheme and host. */
export function normalizeUrl(raw: string): string {
  const trimmed = raw.replace(/[.,;:!?)\]]+$/u, "");
  try {
    const u = new URL(trimmed);
    u.hash = "";
    return u.toString().replace(/\/$/u, "");
  } catch {
    return trimmed.replace(/#.*$/u, "").replace(/\/$/u, "");
  }
}

/**
 * Evidence ids of `retrieved`, by the normalised URL of their source: passages read from the
 * page first, then search snippets, each in retrieval order.
 */
export function evidenceByUrl(retrieved: Iterable<string>, lookup: EvidenceLookup): Map<string, string[]> {
  const byUrl = new Map<string, string[]>();
  const ids = [...retrieved];
  const read = (id: string) => lookup.getEvidence(id)?.retrievedBy.tool === "read_page";
  for (const id of [...ids.filter(read), ...ids.filter((id) => !read(id))]) {
    const e = lookup.getEvidence(id);
    const source = e ? lookup.getSource(e.sourceId) : undefined;
    if (!source?.url) continue;
    const key = normalizeUrl(sourceLocator(source));
    const list = byUrl.get(key) ?? [];
    list.push(id);
    byUrl.set(key, list);
  }
  return byUrl;
}

/** Splits off a closing References section: the body and the URL of each numbered entry. */
export function splitReferences(text: string): { body: string; urls: Map<number, string> } {
  const heading = REFERENCES_HEADING.exec(text);
  const urls = new Map<number, string>();
  if (!heading) return { body: text, urls };
  for (const line of text.slice(heading.index + heading[0].length).split("\n")) {
    const entry = ENTRY.exec(line);
    const url = entry ? new RegExp(URL_RE.source, "iu").exec(entry[2]!)?.[0] : undefined;
    if (entry && url && !urls.has(Number(entry[1]))) urls.set(Number(entry[1]), url);
  }
  return { body: text.slice(0, heading.index).trimEnd(), urls };
}

/** `<sup>[1]</sup>` and `<sup>[E4, E9]</sup>` as `[1]` and `[E4, E9]`. */
export function unwrapSuperscripts(text: string): string {
  return text.replace(/<sup>\s*(\[[^\]<>]{1,80}\])\s*<\/sup>/giu, "$1");
}

/** Resolves the numbered citations (and bare URLs) of `text` against the evidence by URL. */
export function resolveUrlCitations(
  text: string,
  byUrl: ReadonlyMap<string, readonly string[]>,
): UrlCitations {
  const { body, urls } = splitReferences(unwrapSuperscripts(text));
  const cited: string[] = [];
  const unresolved: number[] = [];
  const note = (ids: readonly string[]) => {
    for (const id of ids) if (!cited.includes(id)) cited.push(id);
  };
  const resolved = body.replace(CITE, (whole, list: string) => {
    const ids: string[] = [];
    const missing: number[] = [];
    for (const n of list.split(/[ \t]*[,;，][ \t]*/u).map(Number)) {
      const url = urls.get(n);
      const found = url ? (byUrl.get(normalizeUrl(url)) ?? []).slice(0, PER_CITATION) : [];
      if (found.length) ids.push(...found.filter((id) => !ids.includes(id)));
      else missing.push(n);
    }
    unresolved.push(...missing.filter((n) => !unresolved.includes(n)));
    note(ids);
    const kept = [
      ...(ids.length ? [`[${ids.join(", ")}]`] : []),
      ...(missing.length ? [`[${missing.join(", ")}]`] : []),
    ];
    return kept.length ? kept.join("") : whole;
  });
  for (const url of body.match(URL_RE) ?? [])
    note((byUrl.get(normalizeUrl(url)) ?? []).slice(0, PER_CITATION));
  return { text: resolved, cited, unresolved };
}
