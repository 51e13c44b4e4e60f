import { describe, expect, it } from "vitest";
import type { ReportDocument } from "../core/report.ts";
import { renderHtml } from "./html.ts";

function doc(language: string): ReportDocument {
  return {
    runId: "run-1",
    query: "Question",
    strategy: "minddr",
    title: "Title",
    createdAt: "2026-11-20T00:00:00.000Z",
    currentDate: "2026-11-20",
    language,
    outline: { sections: [] },
    markdown: "# Title\n\nText.\n",
    body: "# Title\n\nText.\n",
    references: [],
    evidenceByNumber: {},
    sources: [],
    evidence: [],
    checks: {} as never,
    usage: {} as never,
    stopReason: "completed",
  };
}

const langOf = (html: string) => /<html lang="([^"]*)">/.exec(html)?.[1];

describe("renderHtml lang", () => {
  it("carries the report's language on the html element", () => {
    expect(langOf(renderHtml(doc("fr")))).toBe("fr");
    expect(langOf(renderHtml(doc("zh-CN")))).toBe("zh-CN");
  });

  it("falls back to en for an unresolved or malformed language", () => {
    expect(langOf(renderHtml(doc("auto")))).toBe("en");
    expect(langOf(renderHtml(doc("")))).toBe("en");
    const hostile = renderHtml(doc('fr" onload="alert(1)'));
    expect(langOf(hostile)).toBe("en");
    expect(hostile).not.toContain("onload");
  });
});

describe("citation tooltips", () => {
  it("show the excerpt as a reader sees it: no Markdown escapes or markers", () => {
    const escaped = {
      ...doc("en"),
      body: "# Title\n\nThe station ships in May [1].\n",
      references: [
        {
          number: 1,
          sourceId: "S1",
          kind: "web" as const,
          title: "Shop",
          locator: "https://shop.example/duo",
          accessed: "2026-11-20",
        },
      ],
      evidenceByNumber: { 1: ["E1"] },
      evidence: [
        {
          id: "E1",
          sourceId: "S1",
          text: "1\\. \\*\\*Clover Station Duo:\\*\\* ships in *May* \\[6\\]",
        } as never,
      ],
    };
    const html = renderHtml(escaped);
    const title = /<a class="cite" href="#ref-1" title="([^"]*)"/.exec(html)?.[1];
    expect(title).toBe("1. Clover Station Duo: ships in May [6]");
  });
});
