/**
 * A test strategy without a model whose report comes with its claims judged as a claim judge
 * would (supported, partly supported, unsupported, unchecked: run it with `verify: "off"` so the
 * run keeps these verdicts), and whose claim text, reasons and deciding passage carry markup, a
 * script and a `javascript:` URL: what the report view must show as text.
 */

import { z } from "zod";
import { type ClaimCheck, type ClaimVerdict, claimTally } from "../../src/core/claim-verdicts.ts";
import { createOutline } from "../../src/core/outline.ts";
import { extractClaims } from "../../src/eval/claims/extract.ts";
import { recordLocalPassage } from "../../src/kit/evidence-recorder.ts";
import { assembleReport } from "../../src/kit/report-assembly.ts";
import type { StrategyDefinition } from "../../src/strategies/types.ts";

/** The passage the claims cite (untrusted: markup, a script, a `javascript:` URL). */
export const HOSTILE_PASSAGE =
  "Heat pumps cut heating emissions by 40 percent in 2024 <script>alert(1)</script> <img src=x onerror=alert(2)> javascript:alert(3) in the Oslo trial homes.";

/** The claims of the report in reading order (without their citation), each with its verdict. */
export const CLAIMS: readonly { text: string; verdict: ClaimVerdict; span: string | null; reason: string }[] =
  [
    {
      text: "Heat pumps cut heating emissions by 40 percent in 2024",
      verdict: "supported",
      span: "Heat pumps cut heating emissions by 40 percent in 2024",
      reason: "the passage says so",
    },
    {
      text: "Heat pumps cut heating emissions <b>sharply</b> in Oslo and Bergen",
      verdict: "partial",
      span: HOSTILE_PASSAGE,
      reason: "Oslo only, not Bergen <a href=javascript:alert(6)>why</a>",
    },
    {
      text: "Heat pumps <script>alert(4)</script> javascript:alert(5) doubled sales in 2019",
      verdict: "unsupported",
      span: "<img src=x onerror=alert(7)> no sales figures",
      reason: "sales are not in the passage",
    },
    {
      text: "Installers were trained in the trial",
      verdict: "unchecked",
      span: null,
      reason: "no passage decides it",
    },
  ];

/** The `claims` strategy: one local passage, a report citing it in each claim, judged as above. */
export const claimsStrategy: StrategyDefinition<Record<string, never>> = {
  name: "claims",
  description: "a report whose claims are judged supported, partly, unsupported and unchecked (tests)",
  optionsSchema: z.object({}).strict() as z.ZodType<Record<string, never>>,
  roles: [],
  capabilities: { needsModel: false, web: false, local: true },
  estimate: () => ({ llm: [], tools: [0, 0] }),
  async run(ctx, input) {
    const hit = { path: "trial.md", anchor: "", title: "Oslo trial", text: HOSTILE_PASSAGE, score: 1 };
    const e = recordLocalPassage(ctx, hit, HOSTILE_PASSAGE, ctx.query, "c1")!;
    const text = `## Findings\n\n${CLAIMS.map((c) => `${c.text} [${e.id}].`).join(" ")}\n`;
    const report = assembleReport(ctx, {
      title: "Claims",
      outline: createOutline([{ title: "Findings", plan: "the claims" }]),
      language: input.language,
      parts: [{ text, allowed: new Set([e.id]) }],
      stopReason: "done",
    });
    const claims: ClaimCheck[] = extractClaims(report.body).map((claim, i) => ({
      index: claim.index,
      text: claim.text,
      numbers: claim.numbers,
      evidenceIds: [e.id],
      verdict: CLAIMS[i]!.verdict,
      span: CLAIMS[i]!.span,
      spanEvidenceId: CLAIMS[i]!.span ? e.id : null,
      reason: CLAIMS[i]!.reason,
      by: "judge",
    }));
    const verification = { mode: "judge" as const, claims, ...claimTally(claims), revised: 0, dropped: 0 };
    return { stopReason: "done", report: { ...report, verification } };
  },
};
