import { describe, expect, it } from "vitest";
import { parseRedline, redlineInline, unescapeText } from "./redline.ts";

describe("the redline view", () => {
  it("reads headings, removed and added claims, citations and pages", () => {
    const md = [
      "# Changes in version 2: Heat pumps",
      "",
      "Refresh of run r1 (this run: r2).",
      "",
      "## Costs (rewritten)",
      "",
      "- ~~Prices fell by 10 percent.~~",
      "- **Prices fell by 12 percent.**",
      "",
      "## Citations added",
      "",
      "- [3] Page 3 <https://example.org/3>",
    ].join("\n");
    expect(parseRedline(md)).toEqual([
      { kind: "heading", level: 1, parts: [{ kind: "text", text: "Changes in version 2: Heat pumps" }] },
      { kind: "paragraph", parts: [{ kind: "text", text: "Refresh of run r1 (this run: r2)." }] },
      { kind: "heading", level: 2, parts: [{ kind: "text", text: "Costs (rewritten)" }] },
      { kind: "item", parts: [{ kind: "removed", text: "Prices fell by 10 percent." }] },
      { kind: "item", parts: [{ kind: "added", text: "Prices fell by 12 percent." }] },
      { kind: "heading", level: 2, parts: [{ kind: "text", text: "Citations added" }] },
      {
        kind: "item",
        parts: [
          { kind: "text", text: "[3] Page 3 " },
          { kind: "link", href: "https://example.org/3", text: "https://example.org/3" },
        ],
      },
    ]);
  });

  it("keeps escaped markup, scripts and non-http links as text", () => {
    expect(redlineInline("- **Sales &lt;script>alert(1)&lt;/script> rose.** <javascript:alert(2)>")).toEqual([
      { kind: "text", text: "- " },
      { kind: "added", text: "Sales <script>alert(1)</script> rose." },
      { kind: "text", text: " <javascript:alert(2)>" },
    ]);
    expect(redlineInline('<https://x.org/"onmouseover=alert(1)>')).toEqual([
      { kind: "text", text: '<https://x.org/"onmouseover=alert(1)>' },
    ]);
    expect(unescapeText("a \\*b\\* &amp;lt; &#39;")).toBe("a *b* &lt; '");
  });
});
