/**
 * Reports load nothing remote: an image in the report's text is a link in every format by
 * default, the HTML report keeps no element that loads by itself and its policy allows no
 * image source; `remoteImages: "keep"` is the one way to keep images.
 */

import { describe, expect, it } from "vitest";
import { parseHtml } from "../../test/inert-html.ts";
import { hasImages } from "../core/markdown-images.ts";
import type { ReportDocument } from "../core/report.ts";
import { REPORT_CSP, renderHtml, reportCsp, sanitizeHtml } from "./html.ts";
import { renderReport } from "./index.ts";
import { renderJsonBundle } from "./json-bundle.ts";
import { renderMarkdown } from "./markdown.ts";

const PIXEL = "https://tracker.example/px.png?q=the-question";
const body = `# Heat pumps\n\n## Findings\n\nThey work in the cold. ![chart](${PIXEL})\n\n![][px]\n\n[px]: ${PIXEL}&ref=1\n`;
const doc: ReportDocument = {
  runId: "run-1",
  query: "How do heat pumps perform?",
  strategy: "minddr",
  title: "Heat pumps",
  createdAt: "2026-01-02T00:00:00.000Z",
  currentDate: "2026-01-02",
  language: "en",
  outline: { sections: [] } as never,
  markdown: body,
  body,
  references: [],
  evidenceByNumber: {},
  sources: [],
  evidence: [],
  checks: {} as never,
  usage: {} as never,
  stopReason: "completed",
};

/** The img-src directive of the page's own policy. */
function imgSrc(html: string): string {
  const policy = parseHtml(html)
    .querySelector('meta[http-equiv="Content-Security-Policy"]')
    ?.getAttribute("content");
  return /img-src ([^;]*)/.exec(policy ?? "")?.[1] ?? "(none)";
}

describe("remote images in reports", () => {
  it("HTML: images become links to their URL, nothing loads, and the policy allows no image", () => {
    const html = renderHtml(doc);
    const d = parseHtml(html);
    expect(d.querySelectorAll("img, picture, source, video, audio, input, image")).toHaveLength(0);
    const link = d.querySelector(`main a[href="${PIXEL}"]`);
    expect(link?.textContent).toBe("image: chart");
    expect(link?.getAttribute("rel")).toBe("noopener noreferrer");
    expect(d.querySelector(`main a[href="${PIXEL}&ref=1"]`)?.textContent).toBe("image");
    expect(imgSrc(html)).toBe("'none'");
    expect(REPORT_CSP).not.toMatch(/https?:/);
    expect(REPORT_CSP).toContain("img-src 'none'");
  });

  it("Markdown and the JSON bundle: no image left, the URL kept as a link", () => {
    for (const text of [
      renderMarkdown(doc),
      ...Object.values((JSON.parse(renderJsonBundle(doc)) as { report: Record<string, string> }).report),
    ]) {
      expect(hasImages(text)).toBe(false);
      expect(text).toContain(`[image: chart](${PIXEL})`);
    }
  });

  it("the last pass drops loading elements a renderer bug might let through", () => {
    const out = sanitizeHtml(
      `<p><img src="${PIXEL}"><picture><source srcset="${PIXEL}"></picture><video src="${PIXEL}" poster="${PIXEL}"></video><audio src="${PIXEL}"></audio><input type="image" src="${PIXEL}"></p>`,
    );
    expect(out).not.toContain("tracker.example");
  });

  it('keeps images only with remoteImages: "keep", and only then allows http(s) images', () => {
    const html = renderReport(doc, "html", { remoteImages: "keep" });
    expect(parseHtml(html).querySelector(`img[src="${PIXEL}"]`)?.getAttribute("alt")).toBe("chart");
    expect(imgSrc(html)).toBe("https: http:");
    expect(reportCsp("keep")).toContain("img-src https: http:");
    expect(hasImages(renderReport(doc, "md", { remoteImages: "keep" }))).toBe(true);
  });
});
