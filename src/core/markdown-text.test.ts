import { describe, expect, it } from "vitest";
import { readableText } from "./markdown-text.ts";

describe("readable text of Markdown", () => {
  it("resolves escapes and drops markers, as a reader sees the text", () => {
    expect(readableText("1\\. \\*\\*Clover Station Duo:\\*\\* a \\[6\\] b")).toBe(
      "1. Clover Station Duo: a [6] b",
    );
    expect(readableText("**Clover Station Duo:** ships in *May* and `v2`; ~~old~~ new")).toBe(
      "Clover Station Duo: ships in May and v2; old new",
    );
    expect(
      readableText("## Heading\n> quoted [the site](https://example.org/a_(b)) and ![logo](x.png)"),
    ).toBe("Heading quoted the site and logo");
  });

  it("keeps what only looks like a marker", () => {
    expect(readableText("2 * 3 * 4 and snake_case_name and a_b")).toBe(
      "2 * 3 * 4 and snake_case_name and a_b",
    );
    expect(readableText("costs \\$5 \\_each\\_")).toBe("costs $5 each");
  });

  it("reads character references once (a report escapes raw HTML as &lt;)", () => {
    expect(readableText("a &lt;b> &amp;lt; &#39;q&#39; &#x4e2d; &quot; &unknown; &#0;")).toBe(
      "a <b> &lt; 'q' 中 \" &unknown; \ufffd",
    );
  });
});
