// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import {
  type BundleClaims,
  claimSharesText,
  claimTip,
  markdownText,
  upgradeClaimMarks,
} from "./claim-marks.ts";
import { importReportBody } from "./sanitize.ts";

const REPORT = `<!doctype html><html><body><main><p>Fell by 40% <sup class="cites">[<a class="cite" href="#ref-1">1</a>]</sup><span class="claim claim-supported" id="claim-1" title="Supported: ok">✓</span>.
Sales &lt;b&gt;doubled&lt;/b&gt; <sup class="cites">[<a class="cite" href="#ref-1">1</a>]</sup><span class="claim claim-unsupported" id="claim-2" title="Unsupported: no — passage: “&lt;script&gt;x&lt;/script&gt;”">unsupported</span>.
Rose <sup class="cites">[<a class="cite" href="#ref-1">1</a>]</sup><span class="claim claim-partial" title="Partially supported: half">partly supported</span>
<span class="claim claim-bogus" id="claim-9">?</span></p></main></body></html>`;

const CLAIMS: BundleClaims = {
  mode: "judge",
  claims: [
    { index: 1, text: "Fell by 40%.", numbers: [1], verdict: "supported", span: "fell by 40%", reason: "ok" },
    {
      index: 2,
      text: "Sales &lt;b>doubled&lt;/b>.",
      numbers: [1],
      verdict: "unsupported",
      span: "<script>x</script>",
      reason: "no",
    },
  ],
  counts: { supported: 1, partial: 0, unsupported: 1, unchecked: 0 },
  shares: { supported: 0.5, partial: 0, unsupported: 0.5, unchecked: 0 },
};

describe("claim marks in the report view", () => {
  it("names a mark in the report's language by its visible words", () => {
    const host = document.createElement("div");
    host.innerHTML = '<p>Text [1]<span class="claim claim-partial" title="t">部分有依据</span></p>';
    upgradeClaimMarks(host, document);
    expect(host.querySelector("button.claim")!.getAttribute("aria-label")).toBe("部分有依据");
  });

  it("turns each verdict mark into a focusable button naming its claim, and drops the native title", () => {
    const host = document.createElement("div");
    host.append(importReportBody(REPORT, document));
    const marks = upgradeClaimMarks(host, document);
    const buttons = [...host.querySelectorAll("button.claim")] as HTMLButtonElement[];
    expect(buttons.map((b) => [b.className, b.textContent, b.dataset.claim, b.dataset.mark])).toEqual([
      ["claim claim-supported", "✓", "1", "0"],
      ["claim claim-unsupported", "unsupported", "2", "1"],
      ["claim claim-partial", "partly supported", undefined, "2"],
    ]);
    expect(buttons.map((b) => b.getAttribute("aria-label"))).toEqual([
      "Supported claim",
      "Unsupported claim",
      "Partly supported claim",
    ]);
    expect(buttons.every((b) => b.type === "button" && !b.hasAttribute("title"))).toBe(true);
    // A mark naming no verdict is left as it was (and is not counted).
    expect(host.querySelector("span.claim-bogus")).not.toBeNull();
    expect(marks.map((m) => m.verdict)).toEqual(["supported", "unsupported", "partial"]);
    expect(host.querySelectorAll("script, b")).toHaveLength(0);
  });

  it("reads a mark's tooltip from the bundle's claim, else from its title", () => {
    expect(claimTip({ verdict: "unsupported", title: "t" }, 2, CLAIMS)).toEqual({
      verdict: "unsupported",
      claim: "Sales <b>doubled</b>.",
      reason: "no",
      span: "<script>x</script>",
      fallback: null,
    });
    expect(claimTip({ verdict: "partial", title: "Partially supported: half" }, null, CLAIMS)).toEqual({
      verdict: "partial",
      claim: null,
      reason: null,
      span: null,
      fallback: "Partially supported: half",
    });
    expect(claimTip({ verdict: "partial", title: "" }, 7, null).fallback).toBeNull();
    expect(markdownText("a &lt;b> &amp;lt; &#39;q&#39; &quot;")).toBe("a <b> &lt; 'q' \"");
  });

  it("shows a claim and its span as a reader sees them, not their Markdown", () => {
    const claims: BundleClaims = {
      ...CLAIMS,
      claims: [
        {
          index: 3,
          text: "\\*\\*Clover Station Duo:\\*\\* ships in May.",
          numbers: [6],
          verdict: "supported",
          span: "**Clover Station Duo:** ships in May \\[6\\]",
          reason: "ok",
        },
      ],
    };
    expect(claimTip({ verdict: "supported", title: "" }, 3, claims)).toMatchObject({
      claim: "Clover Station Duo: ships in May.",
      span: "Clover Station Duo: ships in May [6]",
    });
  });

  it("names the share of each verdict", () => {
    expect(claimSharesText(CLAIMS)).toBe(
      "2 claims: 50% supported · 0% partially supported · 50% unsupported · 0% unchecked",
    );
    expect(claimSharesText({ ...CLAIMS, claims: [] })).toBe("no cited claims to check");
  });
});
