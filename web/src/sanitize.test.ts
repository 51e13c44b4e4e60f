// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { importReportBody } from "./sanitize.ts";

describe("report HTML import", () => {
  it("keeps the body's text and citations and drops what could run, style or load", () => {
    const html = `<!doctype html><html><head><style>body{color:red}</style><meta http-equiv="Content-Security-Policy" content="x"></head>
<body><main class="r"><h1>Report</h1><p onclick="alert(1)" style="color:red">Text <sup class="cites">[<a class="cite" href="#ref-1" title="An excerpt">1</a>]</sup>
<a href="javascript:alert(1)">bad</a> <a href="https://example.org/a">good</a> <img src="https://tracker.example/x.png" alt="chart"></p>
<script>alert(1)</script><iframe src="https://example.org"></iframe><form><input></form>
<ol class="references"><li id="ref-1">Source. <a href="https://example.org/a">https://example.org/a</a></li></ol></main></body></html>`;
    const host = document.createElement("div");
    host.append(importReportBody(html, document));
    expect(host.querySelector("h1")?.textContent).toBe("Report");
    expect(host.querySelector("a.cite")?.getAttribute("href")).toBe("#ref-1");
    expect(host.querySelector("#ref-1")).not.toBeNull();
    expect(host.querySelectorAll("script, style, iframe, form, input, meta, img, main")).toHaveLength(0);
    expect(host.innerHTML).not.toMatch(/onclick|style=|javascript:/i);
    expect(host.textContent).toContain("[chart]");
    const good = [...host.querySelectorAll("a")].find((a) => a.textContent === "good")!;
    expect(good.getAttribute("rel")).toBe("noopener noreferrer");
    const bad = [...host.querySelectorAll("a")].find((a) => a.textContent === "bad")!;
    expect(bad.hasAttribute("href")).toBe(false);
  });
});
