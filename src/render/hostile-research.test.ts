/**
 * A whole minddr research in a loopback world whose search titles and snippets, page text and
 * model prose carry hostile markup and terminal escapes: the Markdown, HTML and JSON reports
 * come out with nothing live. The world's own search server and pages are replaced through its
 * public `config` option (SEARXNG_URL pointing at a hostile search server here), the model
 * prose through its `override` option.
 */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeSearch, startFakeSearch } from "../../test/fake-search/index.ts";
import { type FakeWeb, startFakeWeb } from "../../test/fake-web/index.ts";
import { controlBytes, liveContent, markdownToHtml, parseHtml, scriptCalls } from "../../test/inert-html.ts";
import { outlineAnswer, sectionAnswer } from "../../test/research/minddr-answers.ts";
import type { ChatBody } from "../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { isInertMarkdown } from "../core/safe-markdown.ts";

const ESCAPES = "\u001b]0;pwned\u0007\u001b[2J\u001b[31m";
const MARKUP = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  '<iframe src="javascript:alert(1)"></iframe>',
  "<svg onload=alert(1)>",
  "[click](javascript:alert(1))",
  "[mixed](JaVaScRiPt:alert(1))",
  "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
].join(" ");

/** Hostile markup without parentheses, for titles (the scripted writer reads `[E1] (title) excerpt`). */
const TITLE_MARKUP = "<img src=x onerror=alert`1`> <svg onload=alert`1`> <script>alert`1`</script>";

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A page whose first two sentences (the reader's excerpts) carry hostile text as text, plus live markup around them. */
function hostilePage(n: number): string {
  const first = `Topic ${n} saw measured growth of ${10 + n} percent in 2025 ${escapeHtml(MARKUP)} according to the survey.`;
  const second = `Analysts attribute the change in topic ${n} to lower costs ${ESCAPES} and wider adoption.`;
  return `<!doctype html><html><head><title>Page ${n} ${escapeHtml(TITLE_MARKUP)}</title></head><body><article><h1>Page ${n}</h1><p>${first} ${second}</p><p><img src=x onerror=alert(1)><a href="javascript:alert(1)">more</a> Critics of topic ${n} point to open questions.</p><script>alert(1)</script></article></body></html>`;
}

function userText(body: ChatBody): string {
  return body.messages
    .filter((m) => m.role !== "system")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("")))
    .join("\n");
}

let world: ResearchWorld | undefined;
let web: FakeWeb | undefined;
let search: FakeSearch | undefined;
afterEach(async () => {
  await Promise.all([world?.close(), web?.close(), search?.close()]);
  world = web = search = undefined;
});

describe("a research run over hostile content", () => {
  it("minddr with md, html and json yields reports with nothing live", async () => {
    const routes: Record<string, (req: unknown, res: import("node:http").ServerResponse) => void> = {};
    for (let n = 1; n <= 6; n++) {
      routes[`/page/${n}`] = (_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(hostilePage(n));
      };
    }
    web = await startFakeWeb({ routes: routes as never });
    const pages = web;
    search = await startFakeSearch({
      handler: () => ({
        kind: "results",
        results: [1, 2, 3].map((n) => ({
          title: `Page ${n} ${TITLE_MARKUP} ${ESCAPES}`,
          url: pages.url(`/page/${n}`),
          snippet: `Snippet ${MARKUP} ${ESCAPES}`,
        })),
      }),
    });
    world = await startResearchWorld({
      subtasks: 2,
      config: { searxngUrl: search.baseUrl("searxng") },
      override: (role, body) => {
        const user = userText(body);
        if (role === "section") {
          const base = sectionAnswer(user, {});
          if (base.kind !== "text") return undefined;
          return { kind: "text", text: `${base.text}\n\nThe model adds ${MARKUP} ${ESCAPES}\n\n${MARKUP}` };
        }
        if (role === "outline") {
          const base = outlineAnswer(user);
          if (base.kind !== "text") return undefined;
          const outline = JSON.parse(base.text) as { title: string; sections: { title: string }[] };
          outline.title = `Report ${MARKUP} ${ESCAPES}`;
          outline.sections[0]!.title = `Background <img src=x onerror=alert(1)> ${ESCAPES}`;
          return { kind: "text", text: JSON.stringify(outline) };
        }
        return undefined;
      },
    });

    const result = await world.research({
      query: `How is topic adoption changing? ${ESCAPES} <script>alert(1)</script>`,
      strategy: "minddr",
      formats: ["md", "html", "json"],
    });
    expect(result.record.status).toBe("completed");
    expect(controlBytes(result.record.query)).toEqual([]);
    const [mdPath, htmlPath, jsonPath] = result.outcome!.paths;
    const md = readFileSync(mdPath!, "utf8");
    const html = readFileSync(htmlPath!, "utf8");
    const json = readFileSync(jsonPath!, "utf8");

    // The hostile text reached the report, as text.
    expect(md).toContain("&lt;img src=x onerror=alert(1)>");
    const text = parseHtml(html).body.textContent ?? "";
    expect(text).toContain("<img src=x onerror=alert(1)>");
    expect(text).toContain("[click](javascript:alert(1))");
    const bundle = JSON.parse(json) as { report: { markdown: string }; evidence: { text: string }[] };
    expect(bundle.evidence.some((e) => e.text.includes("<img src=x onerror=alert(1)>"))).toBe(true);

    // HTML: nothing live when parsed, nothing runs when loaded with scripts enabled, a CSP.
    expect(liveContent(html, { requireCsp: true })).toEqual([]);
    expect(await scriptCalls(html)).toBe(0);
    // Citations still link to their references and show their excerpt on hover, without script.
    const cite = parseHtml(html).querySelector('a.cite[href="#ref-1"]');
    expect(cite?.getAttribute("title")).toContain("Topic 1 saw measured growth");
    expect(parseHtml(html).querySelector("ol.references li#ref-1 a")?.getAttribute("href")).toBe(
      pages.url("/page/1"),
    );
    // Markdown: inert as written, and rendered by marked it is equally clean.
    expect(isInertMarkdown(md)).toBe(true);
    expect(liveContent(markdownToHtml(md))).toEqual([]);
    expect(await scriptCalls(markdownToHtml(md))).toBe(0);
    // JSON: the report text is inert; no control byte in any file.
    expect(isInertMarkdown(bundle.report.markdown)).toBe(true);
    for (const file of [md, html, json]) expect(controlBytes(file)).toEqual([]);
  });
});
