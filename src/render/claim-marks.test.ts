import { JSDOM } from "jsdom";
import { describe, expect, it } from "vitest";
import { type ClaimCheck, claimTally } from "../core/claim-verdicts.ts";
import type { ReportDocument } from "../core/report.ts";
import { renderHtml } from "./html.ts";
import { renderJsonBundle } from "./json-bundle.ts";
import { renderMarkdown } from "./markdown.ts";
import { reportDocument } from "./test-fixtures.ts";

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)> </span>`;

function verifiedReport(): ReportDocument {
  const doc = reportDocument({
    title: "Heat pumps",
    body: "# Heat pumps\n\nEmissions fell by 40% [1]. Sales doubled [2]. Output rose [1, 2].\n",
    references: [1, 2].map((number) => ({
      number,
      sourceId: `s${number}`,
      kind: "web" as const,
      title: `Source ${number}`,
      locator: `https://example.org/${number}`,
      accessed: "2026-01-02",
    })),
  });
  const check = (
    index: number,
    text: string,
    verdict: ClaimCheck["verdict"],
    span: string | null,
  ): ClaimCheck => ({
    index,
    text,
    numbers: [1],
    evidenceIds: ["E1"],
    verdict,
    span,
    spanEvidenceId: span ? "E1" : null,
    reason: "judged",
    by: "judge",
  });
  const claims = [
    check(1, "Emissions fell by 40%.", "supported", "Emissions fell by 40% in 2024."),
    check(2, "Sales doubled.", "unsupported", HOSTILE),
    check(3, "Output rose.", "partial", null),
  ];
  return { ...doc, verification: { mode: "judge", claims, ...claimTally(claims), revised: 0, dropped: 0 } };
}

describe("claim marks", () => {
  it("marks each claim in the HTML report, the deciding span as an escaped hover title", () => {
    const html = renderHtml(verifiedReport());
    const page = new JSDOM(html).window.document;
    const marks = [...page.querySelectorAll("span.claim")];
    expect(marks.map((m) => [m.className, m.textContent])).toEqual([
      ["claim claim-supported", "✓"],
      ["claim claim-unsupported", "unsupported"],
      ["claim claim-partial", "partially supported"],
    ]);
    // Each mark names its claim in the JSON bundle's table (the web UI's tooltip reads it there).
    expect(marks.map((m) => m.id)).toEqual(["claim-1", "claim-2", "claim-3"]);
    expect(marks[0]!.getAttribute("title")).toBe("Supported: judged — “Emissions fell by 40% in 2024.”");
    // The hostile span is the title's text, nothing more: no script or image element, no handler.
    expect(marks[1]!.getAttribute("title")).toContain("alert(1)");
    expect(page.querySelectorAll("script, img, [onerror]")).toHaveLength(0);
    expect(marks[1]!.previousElementSibling!.textContent).toBe("[2]");
    expect(page.querySelector("p.claim-summary")!.textContent).toBe(
      "Claim check (judge model): 3 cited claims — 33% supported, 33% partially supported, 33% unsupported, 0% unchecked.",
    );
  });

  it("gives no mark to a citation that is not where the claim was (text changed since)", () => {
    const doc = verifiedReport();
    const html = renderHtml({ ...doc, body: doc.body.replace("Sales doubled", "Sales grew") });
    expect(new JSDOM(html).window.document.querySelectorAll("span.claim")).toHaveLength(2);
  });

  it("ends the Markdown with the summary line and puts the full table in the JSON bundle", () => {
    const doc = verifiedReport();
    expect(renderMarkdown(doc).trimEnd().split("\n").at(-1)).toMatch(
      /^Claim check \(judge model\): 3 cited claims/,
    );
    const bundle = JSON.parse(renderJsonBundle(doc));
    expect(bundle.claims.claims).toHaveLength(3);
    expect(bundle.claims.claims[1]).toMatchObject({ verdict: "unsupported", span: HOSTILE });
    const plain = { ...doc, verification: undefined };
    expect(renderMarkdown(plain)).not.toContain("Claim check");
    expect(renderHtml(plain)).not.toContain("claim-summary");
    expect(JSON.parse(renderJsonBundle(plain)).claims).toBeNull();
  });
});
