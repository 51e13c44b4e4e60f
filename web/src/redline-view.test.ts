// @vitest-environment jsdom
import { h, render } from "preact";
import { describe, expect, it } from "vitest";
import { RedlineView } from "./redline-view.tsx";

describe("the redline on the page", () => {
  it("shows removed and added claims, headings and links, and markup, scripts and other targets as text", () => {
    const md = [
      "# Changes in version 2: Heat &lt;i>pumps&lt;/i>",
      "## Costs (rewritten)",
      "- ~~Sales &lt;script>alert(1)&lt;/script> fell.~~",
      "- **<img src=x onerror=alert(2)> rose.**",
      "- [2] Page <https://example.org/2> <javascript:alert(3)>",
      '<a href="javascript:alert(4)">x</a>',
    ].join("\n");
    const host = document.createElement("div");
    render(h(RedlineView, { markdown: md }), host);
    expect([...host.querySelectorAll("h3, h4")].map((e) => [e.localName, e.textContent])).toEqual([
      ["h3", "Changes in version 2: Heat <i>pumps</i>"],
      ["h4", "Costs (rewritten)"],
    ]);
    expect(host.querySelector("del")!.textContent).toBe("Sales <script>alert(1)</script> fell.");
    expect(host.querySelector("ins")!.textContent).toBe("<img src=x onerror=alert(2)> rose.");
    expect([...host.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual([
      "https://example.org/2",
    ]);
    expect(host.querySelector("a")!.getAttribute("rel")).toBe("noopener noreferrer");
    expect(host.querySelectorAll("script, img, i, [onerror]")).toHaveLength(0);
    expect(host.textContent).toContain("<javascript:alert(3)>");
    expect(host.querySelector("p")!.textContent).toBe('<a href="javascript:alert(4)">x</a>');
    expect(host.querySelectorAll("ul > li")).toHaveLength(3);
  });
});
