/**
 * The evidence check of a refresh: each cited web page fetched again past the cache, with
 * If-None-Match / If-Modified-Since when the run or an earlier refresh kept its validators. A page
 * answering 304 is unchanged; a page whose every cited passage is still there is unchanged (a
 * passage read from the page must be in its text, a passage that was only ever a search snippet in
 * the snippet the same search returns now for the page or in its text: compared normalised, see
 * refresh-text.ts); one that lost a passage is changed (its current passages become new evidence);
 * a 404 or 410 is vanished, and so is a page the refresh's source filter refuses (never requested);
 * any other failure leaves it unreachable (its evidence is kept as it was, with a warning). The
 * searches behind the report are run again too: a result page the run never had, found by a
 * search that still finds pages a section cites, is new evidence for that section.
 */

import { createHash } from "node:crypto";
import type { Source } from "../core/source.ts";
import type { PageText, ResearchTools } from "../kit/research-tools.ts";
import type { PageValidators } from "./refresh-parent.ts";
import { passageFound } from "./refresh-text.ts";

/** What became of a page. */
export type PageState = "unchanged" | "changed" | "vanished" | "unreachable" | "new";

/** One page checked. */
export interface PageCheck {
  url: string;
  state: PageState;
  /** The page's current passages (changed and new pages). */
  passages: string[];
  /** The fetch's call id (provenance of the new passages). */
  callId: string;
  title?: string;
  contentHash?: string;
  validators: PageValidators;
}

/** Passages cut from a new or changed page, at most. */
const MAX_PASSAGES = 4;
/** Characters of a passage, at most. */
const PASSAGE_CHARS = 600;

/** A cited passage of a page, as a refresh looks for it. */
export interface CitedExcerpt {
  text: string;
  /**
   * For a passage that was only ever a search snippet: the snippets the same search returns now
   * for the page (empty when it was not asked again or no longer returns the page).
   */
  snippets?: readonly string[];
}

/** Whether `excerpt` is still there: in a snippet served now for it, or in the page's text. */
export function excerptFound(excerpt: CitedExcerpt, pageText: string): boolean {
  return (
    (excerpt.snippets ?? []).some((snippet) => passageFound(excerpt.text, snippet)) ||
    passageFound(excerpt.text, pageText)
  );
}

/** Checks `source`, whose cited passages are `excerpts`, against the page as served now. */
export async function checkPage(
  tools: Pick<ResearchTools, "fetchPage">,
  source: Source,
  excerpts: readonly CitedExcerpt[],
  validators: PageValidators | undefined,
): Promise<PageCheck> {
  const url = source.url!;
  const base = { url, passages: [] as string[], callId: "", validators: {} as PageValidators };
  if (!tools.fetchPage) return { ...base, state: "unreachable" };
  const conditional = validators && (validators.etag || validators.lastModified) ? validators : undefined;
  const r = await tools.fetchPage(url, { fresh: true, ...(conditional ? { conditional } : {}) });
  if (!r.ok) {
    // The fetch's message names the status: `fetch <url>: HTTP 404`.
    const gone =
      (r.error.code === "PROVIDER_ERROR" && /: HTTP (404|410)$/.test(r.error.message)) ||
      r.error.code === "SOURCE_FILTERED";
    return { ...base, callId: r.callId, state: gone ? "vanished" : "unreachable" };
  }
  const page = r.value;
  const kept = { ...base, callId: r.callId, validators: validatorsOf(page, conditional) };
  if (page.notModified) return { ...kept, state: "unchanged" };
  const contentHash = createHash("sha256").update(page.text).digest("hex");
  const same =
    excerpts.length > 0
      ? excerpts.every((e) => excerptFound(e, page.text))
      : !source.contentHash || source.contentHash === contentHash;
  if (same) {
    return { ...kept, state: "unchanged", contentHash, title: page.title };
  }
  return { ...kept, state: "changed", contentHash, title: page.title, passages: passagesOf(page.text) };
}

/** A page found by a search again that the run never had: its passages. */
export async function readNewPage(tools: Pick<ResearchTools, "fetchPage">, url: string): Promise<PageCheck> {
  const base = { url, passages: [] as string[], validators: {} as PageValidators };
  if (!tools.fetchPage) return { ...base, callId: "", state: "unreachable" };
  const r = await tools.fetchPage(url, { fresh: true });
  if (!r.ok) return { ...base, callId: r.callId, state: "unreachable" };
  const passages = passagesOf(r.value.text);
  return {
    ...base,
    callId: r.callId,
    state: passages.length ? "new" : "unreachable",
    title: r.value.title,
    contentHash: createHash("sha256").update(r.value.text).digest("hex"),
    passages,
    validators: validatorsOf(r.value, undefined),
  };
}

function validatorsOf(page: PageText, sent: PageValidators | undefined): PageValidators {
  const etag = page.etag ?? sent?.etag;
  const lastModified = page.lastModified ?? sent?.lastModified;
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/**
 * Passages of a page's text, verbatim: its paragraphs (headings, link lists and short lines left
 * out), long ones cut at a sentence end, the first {@link MAX_PASSAGES}.
 */
export function passagesOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\n\s*\n/)) {
    const p = raw.trim();
    if (p.length < 40 || /^(#|[-*] \[|\|)/.test(p)) continue;
    if (p.length <= PASSAGE_CHARS) out.push(p);
    else {
      const cut = p.slice(0, PASSAGE_CHARS);
      const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf(".\n"));
      out.push(end > 80 ? cut.slice(0, end + 1) : cut);
    }
    if (out.length >= MAX_PASSAGES) break;
  }
  return out;
}
