/**
 * Claim verification of a finished report (`verify` option): every cited sentence is checked
 * against the passages it cites. `check` runs the lexical check only (no model call); `judge`
 * has the judge model decide (the lexical verdict stands for claims beyond its bound or when a
 * call fails); `rewrite` also has the writer revise or drop the claims judged unsupported,
 * recorded as `claim-revised` events, and judges the revised ones again. The report's citations
 * are left as they were, so every one still resolves. The result rides on the report
 * (`verification`) and in a `claims-verified` event.
 */

import {
  type ClaimCheck,
  type ClaimVerification,
  claimTally,
  type VerifyMode,
} from "../../core/claim-verdicts.ts";
import { isDossierError } from "../../core/errors.ts";
import type { ReportDocument } from "../../core/report.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { extractClaims, type ReportClaim } from "./extract.ts";
import { type JudgeVerdict, judgeClaims } from "./judge.ts";
import { lexicalCheck, type Passage } from "./lexical-check.ts";
import { applyClaimEdits, type ClaimEdit, rewriteClaims } from "./rewrite.ts";

/** What verification needs of the run. */
export type VerifyContext = Pick<RunContext, "structured" | "query" | "emit">;

/** The passages behind a claim's reference numbers. */
function passagesOf(report: ReportDocument, claim: ReportClaim): Passage[] {
  const byId = new Map(report.evidence.map((e) => [e.id, e]));
  const ids = [...new Set(claim.numbers.flatMap((n) => report.evidenceByNumber[n] ?? []))];
  return ids.flatMap((id) => {
    const e = byId.get(id);
    return e ? [{ evidenceId: id, text: e.text }] : [];
  });
}

/** Runs the judge; a failed call (but cancellation) leaves a warning and no verdicts. */
async function judged(
  ctx: VerifyContext,
  items: Array<{ claim: ReportClaim; passages: Passage[] }>,
): Promise<Map<number, JudgeVerdict>> {
  const withText = items.filter((i) => i.passages.length > 0);
  if (withText.length === 0) return new Map();
  try {
    return await judgeClaims(
      ctx,
      withText.map((i) => ({ index: i.claim.index, text: i.claim.text, passages: i.passages })),
    );
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    ctx.emit({
      type: "warning",
      code: "CLAIM_CHECK_DEGRADED",
      message: `the claim judge failed (${isDossierError(error) ? error.code : "error"}); lexical verdicts stand`,
    });
    return new Map();
  }
}

function checkOf(
  claim: ReportClaim,
  passages: Passage[],
  verdict: JudgeVerdict | undefined,
  revisedFrom?: string,
): ClaimCheck {
  const base = {
    index: claim.index,
    text: claim.text,
    numbers: claim.numbers,
    evidenceIds: passages.map((p) => p.evidenceId),
    ...(revisedFrom === undefined ? {} : { revisedFrom }),
  };
  return verdict ? { ...base, ...verdict, by: "judge" } : { ...base, ...lexicalCheck(claim.text, passages) };
}

/** Verifies the report's claims; returns the report with `verification` (and, for rewrite, its new text). */
export async function verifyReport(
  ctx: VerifyContext,
  report: ReportDocument,
  mode: VerifyMode,
): Promise<ReportDocument> {
  if (mode === "off") return report;
  let claims = extractClaims(report.body);
  let items = claims.map((claim) => ({ claim, passages: passagesOf(report, claim) }));
  let verdicts = mode === "check" ? new Map<number, JudgeVerdict>() : await judged(ctx, items);
  let judgedCount = verdicts.size;
  let checks = items.map((i) => checkOf(i.claim, i.passages, verdicts.get(i.claim.index)));
  let doc = report;
  let revised = 0;
  let dropped = 0;

  if (mode === "rewrite") {
    const unsupported = items.filter((i) => verdicts.get(i.claim.index)?.verdict === "unsupported");
    let edits: ClaimEdit[] = [];
    try {
      edits = await rewriteClaims(ctx, unsupported);
    } catch (error) {
      if (isDossierError(error, "CANCELLED")) throw error;
      ctx.emit({
        type: "warning",
        code: "CLAIM_REWRITE_SKIPPED",
        message: `the claim rewrite failed (${isDossierError(error) ? error.code : "error"}); unsupported claims stay, marked`,
      });
    }
    if (edits.length > 0) {
      for (const e of edits) {
        ctx.emit({
          type: "claim-revised",
          claim: e.claim.index,
          action: e.action,
          before: e.claim.raw,
          after: e.replacement,
        });
      }
      const body = applyClaimEdits(report.body, edits);
      // The Markdown is the body and the References after it; otherwise each claim is replaced where it stands.
      const markdown = report.markdown.startsWith(report.body)
        ? body + report.markdown.slice(report.body.length)
        : edits.reduce((md, e) => md.replace(e.claim.raw, e.replacement), report.markdown);
      doc = { ...report, body, markdown };
      revised = edits.filter((e) => e.action === "revise").length;
      dropped = edits.length - revised;
      // The claims as they now stand: unchanged ones keep their verdicts, revised ones are judged again.
      const before = new Map(checks.map((c, i) => [items[i]!.claim.raw, c]));
      const revisedFrom = new Map(
        edits.filter((e) => e.action === "revise").map((e) => [e.replacement, e.claim.text]),
      );
      claims = extractClaims(body);
      items = claims.map((claim) => ({ claim, passages: passagesOf(doc, claim) }));
      const fresh = items.filter((i) => !before.has(i.claim.raw));
      verdicts = await judged(ctx, fresh);
      judgedCount += verdicts.size;
      checks = items.map((i) => {
        const kept = before.get(i.claim.raw);
        if (kept) return { ...kept, index: i.claim.index, text: i.claim.text };
        return checkOf(i.claim, i.passages, verdicts.get(i.claim.index), revisedFrom.get(i.claim.raw));
      });
    }
  }

  const { counts, shares } = claimTally(checks);
  const verification: ClaimVerification = { mode, claims: checks, counts, shares, revised, dropped };
  ctx.emit({ type: "claims-verified", mode, claims: checks.length, judged: judgedCount, counts, shares });
  return { ...doc, verification };
}
