import { describe, expect, it } from "vitest";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { EventInput } from "../../core/events.ts";
import type { ReportDocument } from "../../core/report.ts";
import { LlmClient } from "../../llm/client.ts";
import { generateStructured } from "../../llm/structured.ts";
import { reportDocument } from "../../render/test-fixtures.ts";
import { extractClaims } from "./extract.ts";
import { lexicalCheck } from "./lexical-check.ts";
import { type VerifyContext, verifyReport } from "./verify-report.ts";

const ref = (number: number) => ({
  number,
  sourceId: `s${number}`,
  kind: "web" as const,
  title: `Source ${number}`,
  locator: `https://example.org/${number}`,
  accessed: "2026-01-02",
});

/** A report with three cited claims: one its passage supports, one in part, one not at all. */
function threeClaimReport(): ReportDocument {
  const body = `# Heat pumps

## Findings

Heat pumps cut heating emissions by 40% in Norway [1]. Sales in Canada doubled
between 2020 and 2024 [2].

- Installers reported waiting lists of six months [1, 2].

| a | b |
|---|---|
| 1 [1] | 2 |
`;
  const doc = reportDocument({ title: "Heat pumps", body, references: [ref(1), ref(2)] });
  return {
    ...doc,
    evidenceByNumber: { 1: ["E1"], 2: ["E2"] },
    evidence: [
      {
        id: "E1",
        sourceId: "s1",
        text: "In Norway, heat pumps cut heating emissions by 40%. Demand stayed high.",
      },
      { id: "E2", sourceId: "s2", text: "Sales in Canada grew between 2020 and 2024, by about a third." },
    ] as never,
  };
}

const CLAIMS = {
  norway: "Heat pumps cut heating emissions by 40% in Norway.",
  canada: "Sales in Canada doubled between 2020 and 2024.",
  waiting: "Installers reported waiting lists of six months.",
};

function context(steps: ScriptStep[]) {
  const model = scriptedModel(steps);
  const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
  const events: EventInput[] = [];
  const ctx: VerifyContext = {
    query: "How do heat pumps do?",
    structured: (request) => generateStructured(llm, request),
    emit: (event) => {
      events.push(event);
      return event as never;
    },
  };
  return { ctx, events, model };
}

const judgeStep = (claims: string[], verdicts: unknown[]): ScriptStep => ({
  match: (p: string) => p.includes("check a research report's claims") && claims.every((c) => p.includes(c)),
  reply: { json: { verdicts } },
});

const threeVerdicts = judgeStep(Object.values(CLAIMS), [
  { claim: 1, verdict: "supported", span: "heat pumps cut heating emissions by 40%", reason: "stated" },
  {
    claim: 2,
    verdict: "partial",
    span: "Sales in Canada grew between 2020 and 2024",
    reason: "grew, not doubled",
  },
  { claim: 3, verdict: "unsupported", span: "made-up text not in any passage", reason: "no waiting lists" },
]);

describe("extractClaims", () => {
  it("finds cited sentences of paragraphs and list items, not headings, tables or code", () => {
    const claims = extractClaims(`${threeClaimReport().body}\nA \`[2]\` code span [1].\n`);
    expect(claims.map((c) => c.text)).toEqual([...Object.values(CLAIMS), "A `[2]` code span."]);
    expect(claims.map((c) => c.numbers)).toEqual([[1], [2], [1, 2], [1]]);
    // Ordinal of the last marker among all markers outside code (the table's [1] counts).
    expect(claims.map((c) => c.lastMarker)).toEqual([0, 1, 2, 4]);
  });
});

describe("lexicalCheck", () => {
  const passages = [{ evidenceId: "E1", text: "In 2024 sales rose 12% in Norway, the agency said." }];

  it("labels a claim with a number absent from its passage unsupported", () => {
    const result = lexicalCheck("Sales rose 42% in Norway in 2024.", passages);
    expect(result.verdict).toBe("unsupported");
    expect(result.reason).toMatch(/42/);
    expect(result.span).toBe("In 2024 sales rose 12% in Norway, the agency said.");
  });

  it("supports a claim whose numbers, names and key terms are all there; leaves the rest unchecked", () => {
    expect(lexicalCheck("Sales rose 12% in Norway in 2024.", passages).verdict).toBe("supported");
    expect(lexicalCheck("Sales rose 12% in Sweden in 2024.", passages).verdict).toBe("unchecked");
    expect(lexicalCheck("Buyers flocked to the product.", passages).verdict).toBe("unchecked");
    expect(lexicalCheck("Anything.", []).verdict).toBe("unchecked");
  });
});

describe("verifyReport", () => {
  it("check: lexical verdicts only, no model call", async () => {
    const { ctx, events } = context([]);
    const doc = await verifyReport(ctx, threeClaimReport(), "check");
    expect(doc.verification!.claims.map((c) => [c.verdict, c.by])).toEqual([
      ["supported", "lexical"],
      ["unchecked", "lexical"],
      ["unsupported", "lexical"],
    ]);
    expect(doc.verification!.shares).toEqual({
      supported: 0.333,
      partial: 0,
      unsupported: 0.333,
      unchecked: 0.333,
    });
    expect(events.map((e) => e.type)).toEqual(["claims-verified"]);
  });

  it("judge: a supported, a partially supported and an unsupported claim get those verdicts", async () => {
    const { ctx, events } = context([threeVerdicts]);
    const doc = await verifyReport(ctx, threeClaimReport(), "judge");
    const claims = doc.verification!.claims;
    expect(claims.map((c) => [c.text, c.verdict, c.by])).toEqual([
      [CLAIMS.norway, "supported", "judge"],
      [CLAIMS.canada, "partial", "judge"],
      [CLAIMS.waiting, "unsupported", "judge"],
    ]);
    // The deciding span is the passage's own text; one the passages do not hold is not kept.
    expect(claims[0]).toMatchObject({
      span: "heat pumps cut heating emissions by 40%",
      spanEvidenceId: "E1",
    });
    expect(claims[1]!.spanEvidenceId).toBe("E2");
    expect(claims[2]!.span).toBeNull();
    expect(doc.body).toBe(threeClaimReport().body);
    expect(events.at(-1)).toMatchObject({ type: "claims-verified", judged: 3, counts: { unsupported: 1 } });
  });

  it("judge: a failed judge leaves a warning and the lexical verdicts", async () => {
    const { ctx, events } = context([{ error: { status: 400, message: "bad request" } }]);
    const doc = await verifyReport(ctx, threeClaimReport(), "judge");
    expect(doc.verification!.claims.every((c) => c.by === "lexical")).toBe(true);
    expect(events.map((e) => e.type)).toEqual(["warning", "claims-verified"]);
  });

  it("rewrite: the unsupported claim is revised, judged again, and every citation still resolves", async () => {
    const revisedText = "Installers in Norway saw demand stay high.";
    const { ctx, events } = context([
      threeVerdicts,
      {
        match: (p: string) =>
          p.includes("found unsupported") && p.includes(CLAIMS.waiting) && !p.includes(CLAIMS.canada),
        reply: {
          json: {
            edits: [{ claim: 3, action: "revise", text: "Installers in Norway saw demand stay high [E9]." }],
          },
        },
      },
      judgeStep(
        [revisedText],
        [{ claim: 3, verdict: "supported", span: "Demand stayed high.", reason: "stated" }],
      ),
    ]);
    const report = threeClaimReport();
    const doc = await verifyReport(ctx, report, "rewrite");
    expect(doc.body).not.toContain(CLAIMS.waiting.slice(0, -1));
    expect(doc.body).toContain(`- ${revisedText.slice(0, -1)} [1, 2].`);
    expect(doc.markdown.startsWith(doc.body)).toBe(true);
    expect(doc.markdown.slice(doc.body.length)).toBe(report.markdown.slice(report.body.length));
    const known = new Set(doc.references.map((r) => r.number));
    expect(citedNumbers(doc.markdown).every((n) => known.has(n))).toBe(true);
    expect(doc.verification).toMatchObject({ revised: 1, dropped: 0 });
    expect(doc.verification!.claims.map((c) => c.verdict)).toEqual(["supported", "partial", "supported"]);
    expect(doc.verification!.claims[2]!.revisedFrom).toBe(CLAIMS.waiting);
    expect(events.filter((e) => e.type === "claim-revised")).toMatchObject([{ claim: 3, action: "revise" }]);
  });

  it("rewrite: a dropped claim leaves the body, the others stay byte for byte", async () => {
    const { ctx, events } = context([
      threeVerdicts,
      {
        match: (p: string) => p.includes("found unsupported"),
        reply: { json: { edits: [{ claim: 3, action: "drop", text: "" }] } },
      },
    ]);
    const report = threeClaimReport();
    const doc = await verifyReport(ctx, report, "rewrite");
    expect(doc.body).toBe(
      report.body.replace("- Installers reported waiting lists of six months [1, 2].\n", ""),
    );
    expect(doc.verification).toMatchObject({ revised: 0, dropped: 1 });
    expect(doc.verification!.claims.map((c) => c.verdict)).toEqual(["supported", "partial"]);
    expect(events.filter((e) => e.type === "claim-revised")).toHaveLength(1);
  });
});
