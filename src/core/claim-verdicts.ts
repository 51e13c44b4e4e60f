/**
 * Claim verification results: each cited sentence (claim) of a report checked against the
 * passages it cites, with a verdict and the span of the passage that decides it. Carried by the
 * report document, shown per claim in the HTML report, in full in the JSON bundle.
 */

import { reportLabels } from "./report-labels.ts";

/** A claim's verdict; `unchecked` when nothing could decide it. */
export type ClaimVerdict = "supported" | "partial" | "unsupported" | "unchecked";

/** The verdicts in display order. */
export const CLAIM_VERDICTS: readonly ClaimVerdict[] = ["supported", "partial", "unsupported", "unchecked"];

/** How claims are verified: not at all, checked, or checked and unsupported ones revised. */
export type VerifyMode = "off" | "check" | "judge" | "rewrite";

/** The verify modes, for options and flags. */
export const VERIFY_MODES = ["off", "check", "judge", "rewrite"] as const;

/** One checked claim. */
export interface ClaimCheck {
  /** 1-based number of the claim in reading order. */
  index: number;
  /** The sentence as it stands in the report, citations removed. */
  text: string;
  /** Reference numbers it cites. */
  numbers: number[];
  /** Evidence ids behind those numbers. */
  evidenceIds: string[];
  verdict: ClaimVerdict;
  /** The passage text that decides the verdict (verbatim from the evidence), when one does. */
  span: string | null;
  /** The evidence the span comes from. */
  spanEvidenceId: string | null;
  /** Why (short). */
  reason: string;
  /** Who decided: the lexical check or the judge model. */
  by: "lexical" | "judge";
  /** Set when `rewrite` changed the claim: its text before. */
  revisedFrom?: string;
}

/** Shares of the claims per verdict (0..1; all 0 when there is no claim). */
export type ClaimShares = Record<ClaimVerdict, number>;

/** The verification of a report. */
export interface ClaimVerification {
  mode: Exclude<VerifyMode, "off">;
  claims: ClaimCheck[];
  counts: Record<ClaimVerdict, number>;
  shares: ClaimShares;
  /** Claims revised and dropped by `rewrite`. */
  revised: number;
  dropped: number;
}

/** Counts and shares of a list of checked claims. */
export function claimTally(claims: readonly Pick<ClaimCheck, "verdict">[]): {
  counts: Record<ClaimVerdict, number>;
  shares: ClaimShares;
} {
  const counts: Record<ClaimVerdict, number> = { supported: 0, partial: 0, unsupported: 0, unchecked: 0 };
  for (const c of claims) counts[c.verdict]++;
  const total = claims.length;
  const shares = Object.fromEntries(
    CLAIM_VERDICTS.map((v) => [v, total ? Math.round((counts[v] / total) * 1000) / 1000 : 0]),
  ) as ClaimShares;
  return { counts, shares };
}

/** The one-line summary printed at the end of a report and by the CLI, in the report's language. */
export function claimSummaryLine(v: ClaimVerification, language?: string): string {
  const l = reportLabels(language);
  const total = v.claims.length;
  const colon = l.stop === "。" ? "：" : ": ";
  if (total === 0) return `${l.claimCheck}${colon}${l.noClaims}${l.stop}`;
  const pct = (n: number) => `${Math.round((n / total) * 100)}%`;
  const how = v.mode === "check" ? l.lexicalCheck : l.judgeModel;
  const open = l.stop === "。" ? "（" : " (";
  const close = l.stop === "。" ? "）" : ")";
  const shares = [
    `${pct(v.counts.supported)} ${l.supported}`,
    `${pct(v.counts.partial)} ${l.partial}`,
    `${pct(v.counts.unsupported)} ${l.unsupported}`,
    `${pct(v.counts.unchecked)} ${l.unchecked}`,
  ].join(l.comma);
  const edits =
    v.revised || v.dropped ? `${l.semicolon}${l.revised(v.revised)}${l.comma}${l.dropped(v.dropped)}` : "";
  return `${l.claimCheck}${open}${how}${close}${colon}${l.citedClaims(total)} — ${shares}${edits}${l.stop}`;
}
