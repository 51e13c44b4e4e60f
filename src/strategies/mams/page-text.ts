/**
 * Pages as mams reads them (seed: §3.4 — the raw observation is chunked, not a summary): a
 * `read_page` call fetches the page's text with no reader model, splits it on paragraph
 * boundaries into passages of at most {@link PASSAGE_CHARS} characters (a paragraph longer
 * than that between sentences), and records each passage as evidence of the page, in order.
 * The passages are the observation the state and report agents read in chunks. A page longer
 * than `maxPageTokens` keeps its head and tail (60/40), the cut marked.
 */

import { recordPageReading } from "../../kit/evidence-recorder.ts";
import type { Observation } from "../../kit/observation.ts";
import type { ResearchTools } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { describeAction, runAction } from "../../kit/search-actions.ts";
import { cutMarker, truncateHeadTail } from "../../tools/crawl/truncate.ts";
import { splitLong } from "./protocol.ts";

/** Characters of one page passage at most (one evidence id each). */
export const PASSAGE_CHARS = 1500;
/** Estimated tokens of a page's text that are chunked at most: five observation windows. */
export const DEFAULT_PAGE_TOKENS = 120_000;

/** A page's text as passages: paragraphs packed up to `max` characters, long ones cut between sentences. */
export function pagePassages(text: string, max = PASSAGE_CHARS): string[] {
  const paragraphs = text
    .replace(/\r\n/g, "\n")
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap((p) => (p.length > max ? splitLong(p, max) : [p]));
  const out: string[] = [];
  let current = "";
  for (const p of paragraphs) {
    if (current && current.length + 2 + p.length > max) {
      out.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${p}` : p;
  }
  if (current) out.push(current);
  return out;
}

/**
 * Reads a page as text and records its passages (see the module comment); without a page
 * fetcher among the tools, reads it with the reader like any other strategy. Never throws.
 */
export async function readPageText(
  ctx: RunContext,
  tools: ResearchTools,
  action: { tool: "read_page"; url: string; goal: string },
  maxPageTokens = DEFAULT_PAGE_TOKENS,
): Promise<Observation> {
  if (!tools.fetchPage) return runAction(ctx, tools, action, 5);
  const label = describeAction(action);
  const r = await tools.fetchPage(action.url);
  if (!r.ok) return { action: label, ok: false, error: r.error, evidence: [], lines: [] };
  const shown = truncateHeadTail(r.value.text, maxPageTokens, 0.6);
  // Passages are the page's own text: the head and the tail apart, the cut marker in neither.
  const parts = shown.truncated ? shown.text.split(cutMarker(shown.omittedChars)) : [shown.text];
  const evidence = recordPageReading(
    ctx,
    { ...r.value, rationale: "", summary: "", evidence: parts.flatMap((part) => pagePassages(part)) },
    action.goal,
    r.callId,
  );
  const lines = [
    ...(evidence.length === 0 ? ["the page has no text"] : []),
    ...(shown.truncated ? [`page cut to its head and tail: ${shown.omittedChars} characters left out`] : []),
  ];
  return { action: label, ok: true, evidence, lines };
}
