/**
 * Claim verification in the HTML report: a mark after each checked claim's last citation (the
 * verdict as a short label, the deciding passage span and the reason as its hover title, the
 * its number in the JSON bundle's table as its id, `claim-<n>`), and
 * the one-line summary. Untrusted text (spans, reasons: passages and model output) only ever
 * reaches an escaped attribute value. A citation whose numbers do not match the claim's last
 * marker gets no mark (the claim is not where it was expected).
 */

import { type ClaimVerdict, type ClaimVerification, claimSummaryLine } from "../core/claim-verdicts.ts";
import { type ReportLabels, reportLabels } from "../core/report-labels.ts";
import { extractClaims } from "../eval/claims/extract.ts";

/** Styles of the marks (inline in the report's own style element). */
export const CLAIM_MARK_STYLE = `
.claim { font: 600 .65em system-ui, sans-serif; border-radius: .25rem; padding: 0 .25rem; margin-left: .15rem; vertical-align: super; line-height: 0; cursor: help; }
.claim-supported { color: #1a7f37; }
.claim-partial { color: #9a6700; border: 1px solid currentColor; }
.claim-unsupported { color: #fff; background: #cf222e; }
.claim-unchecked { color: var(--muted); }
.claim-summary { color: var(--muted); font: 14px system-ui, sans-serif; border-top: 1px solid var(--rule); padding-top: .75rem; margin-top: 2rem; }
`;

/** The short label shown after a claim, in the report's language. */
export function markLabel(verdict: ClaimVerdict, labels: ReportLabels): string {
  return verdict === "supported" ? "✓" : verdict === "unchecked" ? "?" : labels[verdict];
}

/** A claim's mark: where it goes (the body's citation ordinal), what it says and its hover title. */
export interface ClaimMark {
  index: number;
  /** The citation's numbers as written (`1, 2`). */
  numbers: string;
  verdict: ClaimVerdict;
  label: string;
  title: string;
}

const escapeText = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/** The hover title of a claim's mark: verdict, reason and deciding span (plain text). */
function markTitle(verdict: ClaimVerdict, reason: string, span: string | null, labels: ReportLabels): string {
  const name = labels[verdict];
  const text = `${name[0]!.toUpperCase()}${name.slice(1)}: ${reason}${span ? ` — “${span}”` : ""}`;
  // Sequences the sanitizer reads as closing a raw-text element read the same with a single angle mark.
  return text.replace(/<(?=\/)/g, "‹").replace(/(--!?|\])>/g, "$1›");
}

/**
 * The marks of the claims of `body`, by the ordinal of the citation they follow (the body's
 * citations counted in order, as the renderers meet them).
 */
export function claimMarks(
  body: string,
  verification: ClaimVerification,
  language?: string,
): Map<number, ClaimMark> {
  const labels = reportLabels(language);
  const marks = new Map<number, ClaimMark>();
  for (const claim of extractClaims(body)) {
    const check = verification.claims.find((c) => c.index === claim.index && c.text === claim.text);
    if (!check || claim.lastMarker < 0) continue;
    const last = claim.markers[claim.markers.length - 1]!;
    marks.set(claim.lastMarker, {
      index: check.index,
      numbers: last.slice(1, -1),
      verdict: check.verdict,
      label: markLabel(check.verdict, labels),
      title: markTitle(check.verdict, check.reason, check.span, labels),
    });
  }
  return marks;
}

/**
 * Marks the claims of `body` in the rendered HTML: `html` holds the body's citations as
 * `<sup class="cites">` in order (see linkCitations).
 */
export function markClaims(
  html: string,
  body: string,
  verification: ClaimVerification,
  language?: string,
): string {
  const byMarker = claimMarks(body, verification, language);
  let ordinal = -1;
  return html.replace(/<sup class="cites">\[([\s\S]*?)\]<\/sup>/g, (whole, inner: string) => {
    ordinal++;
    const mark = byMarker.get(ordinal);
    const numbers = [...inner.matchAll(/>(\d+)<\/a>/g)].map((m) => m[1]).join(", ");
    if (!mark || mark.numbers !== numbers) return whole;
    return `${whole}<span class="claim claim-${mark.verdict}" id="claim-${mark.index}" title="${escapeText(mark.title)}">${escapeText(mark.label)}</span>`;
  });
}

/** The summary paragraph at the end of the HTML report. */
export function claimSummaryHtml(verification: ClaimVerification, language?: string): string {
  return `<p class="claim-summary">${escapeText(claimSummaryLine(verification, language))}</p>`;
}
