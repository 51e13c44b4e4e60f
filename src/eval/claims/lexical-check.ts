/**
 * The conservative lexical claim check, used without a model and as the judge's fallback: a
 * number or date of the claim that no cited passage contains makes the claim unsupported; a
 * claim whose numbers, names and most key terms all occur in its passages is supported;
 * anything else is unchecked (words alone cannot tell a paraphrase from a distortion).
 */

import type { ClaimCheck } from "../../core/claim-verdicts.ts";
import { segmenter } from "../../core/segmenter.ts";
import { contentWords } from "../../core/text.ts";

/** A cited passage: an evidence excerpt. */
export interface Passage {
  evidenceId: string;
  text: string;
}

/** Share of content words that must occur in the passages for `supported`. */
export const LEXICAL_SUPPORT_SHARE = 0.85;

const SMALL_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** Numbers of a text, normalized: thousands separators dropped, decimal commas as points. */
export function numbersOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\d+(?:[.,\u00a0 ]\d+)*/g)) {
    let n = m[0];
    // 1,500 / 1 500 / 1.500.000: groups of three after the first are thousands.
    if (/^\d{1,3}(?:[,\u00a0 ]\d{3})+(?:\.\d+)?$/.test(n)) n = n.replace(/[,\u00a0 ]/g, "");
    else if (/^\d+,\d+$/.test(n)) n = n.replace(",", ".");
    n = n.replace(/[\u00a0 ]/g, "");
    if (/^\d+\.\d+$/.test(n)) n = n.replace(/0+$/, "").replace(/\.$/, "");
    found.push(n.replace(/^0+(?=\d)/, ""));
  }
  return found;
}

/** Capitalized words not at the start of the sentence (names, places, organisations). */
function namesOf(text: string): string[] {
  const words = [...text.matchAll(/(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{M}'’-]*\p{L}/gu)];
  return words.filter((m) => m.index > 0 && !/[.!?:]\s*$/.test(text.slice(0, m.index))).map((m) => m[0]);
}

/** The passage sentence that shares most content words with the claim (the deciding span). */
function bestSpan(claim: string, passages: readonly Passage[]): { span: string; evidenceId: string } | null {
  const words = new Set(contentWords(claim));
  let best: { span: string; evidenceId: string; score: number } | null = null;
  for (const p of passages) {
    for (const { segment } of segmenter("sentence").segment(p.text)) {
      const span = segment.trim();
      if (!span) continue;
      const score = contentWords(span).filter((w) => words.has(w)).length;
      if (score > 0 && (!best || score > best.score)) best = { span, evidenceId: p.evidenceId, score };
    }
  }
  return (
    best && {
      span: best.span.length > 400 ? `${best.span.slice(0, 400)}…` : best.span,
      evidenceId: best.evidenceId,
    }
  );
}

/** The lexical verdict of a claim against its passages. */
export function lexicalCheck(
  claim: string,
  passages: readonly Passage[],
): Pick<ClaimCheck, "verdict" | "span" | "spanEvidenceId" | "reason" | "by"> {
  const all = passages.map((p) => p.text).join("\n");
  const by = "lexical" as const;
  if (!all.trim())
    return { verdict: "unchecked", span: null, spanEvidenceId: null, reason: "no cited passage text", by };
  const best = bestSpan(claim, passages);
  const span = best?.span ?? null;
  const spanEvidenceId = best?.evidenceId ?? null;
  const pool = new Set(numbersOf(all));
  const lower = all.toLowerCase();
  for (const [i, word] of SMALL_NUMBERS.entries())
    if (new RegExp(`\\b${word}\\b`).test(lower)) pool.add(String(i));
  const spelled = SMALL_NUMBERS.flatMap((word, i) =>
    new RegExp(`\\b${word}\\b`, "i").test(claim) ? [String(i)] : [],
  );
  const missing = [...new Set([...numbersOf(claim), ...spelled])].filter((n) => !pool.has(n));
  if (missing.length > 0) {
    return {
      verdict: "unsupported",
      span,
      spanEvidenceId,
      reason: `${missing.join(", ")} not in the cited passages`,
      by,
    };
  }
  const absentNames = namesOf(claim).filter((n) => !lower.includes(n.toLowerCase()));
  const words = contentWords(claim);
  const passageWords = new Set(contentWords(all));
  const share = words.length ? words.filter((w) => passageWords.has(w)).length / words.length : 0;
  if (absentNames.length === 0 && words.length > 0 && share >= LEXICAL_SUPPORT_SHARE) {
    return {
      verdict: "supported",
      span,
      spanEvidenceId,
      reason: `numbers, names and ${Math.round(share * 100)}% of key terms in the passages`,
      by,
    };
  }
  const why = absentNames.length
    ? `${absentNames.join(", ")} not in the passages`
    : `${Math.round(share * 100)}% of key terms in the passages`;
  return { verdict: "unchecked", span, spanEvidenceId, reason: `${why}; needs a judge`, by };
}
