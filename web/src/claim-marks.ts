/**
 * The claim check in the report view: the report's marks (one after each checked claim's last
 * citation, `span.claim claim-<verdict>`) become focusable buttons whose hover or focus shows
 * the verdict, the reason and the passage span that decides it, read from the JSON bundle's
 * claim table (all of it untrusted text, shown as text: the claim and its span as a reader sees
 * them, not their Markdown); the shares of each verdict.
 */

import { readableText } from "../../src/core/markdown-text.ts";

/** A claim's verdict. */
export type ClaimVerdict = "supported" | "partial" | "unsupported" | "unchecked";

const VERDICTS: readonly ClaimVerdict[] = ["supported", "partial", "unsupported", "unchecked"];

/** One checked claim, as the JSON bundle holds it. */
export interface BundleClaim {
  index: number;
  text: string;
  numbers: number[];
  verdict: ClaimVerdict;
  span: string | null;
  reason: string;
  by?: string;
  revisedFrom?: string;
}

/** The bundle's claim check (`claims`; null when verification was off). */
export interface BundleClaims {
  mode: string;
  claims: BundleClaim[];
  counts: Record<ClaimVerdict, number>;
  shares: Record<ClaimVerdict, number>;
  revised?: number;
  dropped?: number;
}

/** What a claim mark's tooltip shows. */
export interface ClaimTip {
  verdict: ClaimVerdict;
  /** The claim (from the bundle), when known. */
  claim: string | null;
  reason: string | null;
  span: string | null;
  /** The mark's own title (the HTML report's text), used when the bundle has no entry. */
  fallback: string | null;
}

/** How the UI names each verdict. */
export const VERDICT_LABELS: Record<ClaimVerdict, string> = {
  supported: "Supported",
  partial: "Partially supported",
  unsupported: "Unsupported",
  unchecked: "Unchecked",
};

/** The verdict named by a mark's classes, or null when it names none. */
export function verdictOf(el: Element): ClaimVerdict | null {
  return VERDICTS.find((v) => el.classList.contains(`claim-${v}`)) ?? null;
}

/**
 * Replaces each claim mark in `root` by a button of the same text and verdict class (so it can
 * take focus), numbered in reading order (`data-mark`), and returns each mark's title (the
 * native title is removed: the page's own tooltip shows it).
 */
export function upgradeClaimMarks(
  root: ParentNode,
  doc: Document,
): { verdict: ClaimVerdict; title: string }[] {
  const marks: { verdict: ClaimVerdict; title: string }[] = [];
  for (const span of Array.from(root.querySelectorAll("span.claim"))) {
    const verdict = verdictOf(span);
    if (!verdict) continue;
    const button = doc.createElement("button");
    button.type = "button";
    button.className = `claim claim-${verdict}`;
    button.textContent = span.textContent;
    // The name starts with the mark's visible words (axe: label-content-name-mismatch), in the
    // report's language; a symbol mark (✓, ?) is named by its verdict.
    const visible = (span.textContent ?? "").trim();
    const words = /\p{L}/u.test(visible) ? visible : VERDICT_LABELS[verdict];
    button.setAttribute(
      "aria-label",
      `${words.charAt(0).toUpperCase()}${words.slice(1)}${/[a-z]/i.test(words) ? " claim" : ""}`,
    );
    button.dataset.mark = String(marks.length);
    // The report names the mark's claim by its id, `claim-<n>` (n: its index in the bundle's table).
    const index = /^claim-(\d+)$/.exec(span.id)?.[1];
    if (index) button.dataset.claim = index;
    marks.push({ verdict, title: span.getAttribute("title") ?? "" });
    span.replaceWith(button);
  }
  return marks;
}

/** The tooltip of a mark: the bundle's claim with that index, else the mark's title. */
export function claimTip(
  mark: { verdict: ClaimVerdict; title: string },
  index: number | null,
  claims: BundleClaims | null,
): ClaimTip {
  const check = index === null ? undefined : claims?.claims.find((c) => c.index === index);
  if (!check)
    return { verdict: mark.verdict, claim: null, reason: null, span: null, fallback: mark.title || null };
  return {
    verdict: check.verdict,
    claim: readableText(check.text),
    reason: check.reason,
    span: check.span === null ? null : readableText(check.span),
    fallback: null,
  };
}

/**
 * A claim as the report reads it: the report's Markdown holds raw HTML escaped (`&lt;b>`), and
 * the tooltip shows text, so the escapes are read back (the result only ever becomes a text node).
 */
export function markdownText(text: string): string {
  return text.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) =>
    name === "lt" ? "<" : name === "gt" ? ">" : name === "quot" ? '"' : name === "#39" ? "'" : "&",
  );
}

/** The shares line: "Claims: 50% supported · 25% partially supported · …" (verdicts with claims). */
export function claimSharesText(claims: BundleClaims): string {
  const total = claims.claims.length;
  if (total === 0) return "no cited claims to check";
  const parts = VERDICTS.map(
    (v) => `${Math.round((claims.counts[v] / total) * 100)}% ${v === "partial" ? "partially supported" : v}`,
  );
  return `${total} claims: ${parts.join(" · ")}`;
}
