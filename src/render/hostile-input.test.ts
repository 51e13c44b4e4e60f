import { describe, expect, it } from "vitest";
import { controlBytes, liveContent, markdownToHtml, parseHtml, scriptCalls } from "../../test/inert-html.ts";
import { citationPass } from "../core/citations.ts";
import { EvidenceRegistry } from "../core/evidence-registry.ts";
import type { ReportDocument } from "../core/report.ts";
import { isInertMarkdown, isSafeLinkTarget, safeMarkdown } from "../core/safe-markdown.ts";
import { renderHtml } from "./html.ts";
import { renderJsonBundle } from "./json-bundle.ts";
import { renderMarkdown } from "./markdown.ts";

/** Hostile inputs by XSS filter-evasion class. Every one calls alert() if it ever runs. */
const HOSTILE: [string, string][] = [
  ["script tag", "<script>alert(1)</script>"],
  ["script tag, upper case with src", "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>"],
  ["nested script tag", "<scr<script>ipt>alert(1)</scr</script>ipt>"],
  ["img onerror", "<img src=x onerror=alert(1)>"],
  ["img onerror, no quotes or spaces", "<img/src=x/onerror=alert(1)>"],
  ["body onload", "<body onload=alert(1)>"],
  ["div onmouseover", '<div onmouseover="alert(1)">hover</div>'],
  ["details ontoggle", "<details open ontoggle=alert(1)><summary>x</summary></details>"],
  ["input autofocus onfocus", "<input autofocus onfocus=alert(1)>"],
  ["iframe javascript src", '<iframe src="javascript:alert(1)"></iframe>'],
  ["iframe srcdoc", '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
  ["object data", '<object data="javascript:alert(1)"></object>'],
  ["embed data URL", '<embed src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">'],
  ["svg onload", "<svg onload=alert(1)>"],
  ["svg script", "<svg><script>alert(1)</script></svg>"],
  ["svg xlink:href", '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>'],
  ["svg animate onbegin", "<svg><animate onbegin=alert(1) attributeName=x dur=1s>"],
  ["MathML mglyph mutation", "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"],
  ["MathML href", '<math href="javascript:alert(1)"><mi>x</mi></math>'],
  ["base href", '<base href="javascript:alert(1)//">'],
  ["base href elsewhere", '<base href="https://evil.example/">'],
  ["meta refresh", '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
  [
    "meta refresh data URL",
    '<meta http-equiv="refresh" content="0;url=data:text/html,<script>alert(1)</script>">',
  ],
  ["comment breakout", '<!--<img src="--><img src=x onerror=alert(1)//">'],
  ["CDATA", "<![CDATA[<script>alert(1)</script>]]>"],
  ["noscript mutation", '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>'],
  ["style tag", "<style>@import 'https://evil.example/x.css';</style>"],
  ["style attribute", '<div style="background:url(javascript:alert(1))">x</div>'],
  ["form action", '<form action="javascript:alert(1)"><button>go</button></form>'],
  ["button formaction", "<button formaction=javascript:alert(1)>go</button>"],
  ["raw anchor javascript", '<a href="javascript:alert(1)">click</a>'],
  ["raw anchor tab in scheme", '<a href="jav&#x09;ascript:alert(1)">click</a>'],
  ["raw anchor control char lead", '<a href=" &#14;  javascript:alert(1)">click</a>'],
  ["raw anchor data URL", '<a href="data:text/html,<script>alert(1)</script>">click</a>'],
  ["Markdown link javascript", "[click](javascript:alert(1))"],
  ["Markdown link mixed case", "[click](JaVaScRiPt:alert(1))"],
  ["Markdown link decimal entity", "[click](&#106;avascript:alert(1))"],
  ["Markdown link hex entities", "[click](&#x6A;&#x61;vascript&colon;alert(1))"],
  ["Markdown link padded entity", "[click](&#0000106&#0000097vascript:alert(1))"],
  ["Markdown link tab in scheme", "[click](java\tscript:alert(1))"],
  ["Markdown link entity tab in scheme", "[click](jav&#x09;ascript:alert(1))"],
  ["Markdown link newline entity", "[click](java&NewLine;script:alert(1))"],
  ["Markdown link NUL in scheme", "[click](java\u0000script:alert(1))"],
  ["Markdown link control char lead", "[click](\u0001javascript:alert(1))"],
  ["Markdown link backslash escape", "[click](javascript\\:alert(1))"],
  ["Markdown link pointy", "[click](<javascript:alert(1)>)"],
  ["Markdown link pointy with tag", "[click](<https://ok.example<img src=x onerror=alert(1)>)"],
  ["Markdown link vbscript", "[click](vbscript:msgbox(1))"],
  ["Markdown link data URL", "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"],
  ["Markdown link protocol-relative", "[click](//evil.example/x)"],
  ["Markdown link title breakout", '[click](https://ok.example "a\\" onmouseover=\\"alert(1)")'],
  ["Markdown image javascript", "![x](javascript:alert(1))"],
  ["Markdown image data URL", "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)"],
  ["Markdown image onerror title", '![x](https://ok.example/a.png "x\\" onerror=\\"alert(1)")'],
  ["reference definition", "[click][r]\n\n[r]: javascript:alert(1)"],
  ["reference definition entity", "[r]\n\n[r]: jav&#x61;script:alert(1)"],
  ["reference definition next line", "[click][r]\n\n[r]:\n  data:text/html,x"],
  ["autolink javascript", "<javascript:alert(1)>"],
  ["autolink data", "<data:text/html,alert(1)>"],
  ["escaped backtick confusion", "\\`a <img src=x onerror=alert(1)> b\\`"],
  ["unbalanced backticks", "``<img src=x onerror=alert(1)>`"],
  ["html block", "<div>\n<img src=x onerror=alert(1)>\n</div>"],
  [
    "inside a table cell",
    "| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |",
  ],
  ["inside a list and quote", "- <script>alert(1)</script>\n> <svg onload=alert(1)>"],
  ["ftp autolink", "see ftp://evil.example/x"],
  ["terminal escapes", "\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u001b[0m \u009b31m"],
];

const EXCERPT_TEXT = "Adoption grew 12 percent in 2025.";

function registryWith(title: string, text: string, url = "https://source.example/a") {
  const registry = new EvidenceRegistry();
  const { source } = registry.addSource({ kind: "web", url, title, fetchedAt: "2026-11-20T00:00:00.000Z" });
  const { evidence } = registry.addEvidence({
    sourceId: source.id,
    text,
    retrievedBy: { tool: "crawl_page", callId: "c1" },
  });
  return { registry, id: evidence.id };
}

/** A report document whose every untrusted field carries `payload`; `assembled` runs the assembly escaping. */
function hostileDoc(payload: string, assembled: boolean): ReportDocument {
  const { registry, id } = registryWith(`Source ${payload}`, `${EXCERPT_TEXT} ${payload}`);
  const cited = citationPass({
    parts: [
      {
        text: `## Findings ${payload}\n\nThe figure rose [${id}]. ${payload}\n\n- item ${payload}`,
        allowed: "all",
      },
    ],
    lookup: registry,
  });
  const rawBody = `# Title ${payload}\n\n${cited.body}\n`;
  const body = assembled ? safeMarkdown(rawBody) : rawBody;
  const refs = assembled ? safeMarkdown(cited.referencesMarkdown) : cited.referencesMarkdown;
  return {
    runId: "run-1",
    query: `Question ${payload}`,
    strategy: "minddr",
    title: `Title ${payload}`,
    createdAt: "2026-11-20T00:00:00.000Z",
    currentDate: "2026-11-20",
    language: "en",
    outline: { sections: [] },
    markdown: `${body}\n${refs}`,
    body,
    references: cited.references,
    evidenceByNumber: cited.evidenceByNumber,
    sources: registry.sources(),
    evidence: registry.evidence(),
    checks: {} as never,
    usage: {} as never,
    stopReason: "completed",
    notice: `Notice ${payload}`,
  };
}

describe("hostile input in reports", () => {
  describe.each([
    ["assembled", true],
    ["raw (renderer defences alone)", false],
  ])("%s report", (_label, assembled) => {
    it.each(HOSTILE)("%s: the HTML report has nothing live", async (_name, payload) => {
      const html = renderHtml(hostileDoc(payload, assembled));
      expect(liveContent(html, { requireCsp: true })).toEqual([]);
      expect(controlBytes(html)).toEqual([]);
      // The citation still links to its reference and shows the excerpt on hover, without script.
      const cite = parseHtml(html).querySelector("a.cite");
      expect(cite?.getAttribute("href")).toBe("#ref-1");
      expect(cite?.getAttribute("title")).toContain(EXCERPT_TEXT);
    });

    it.each(HOSTILE)("%s: the Markdown report renders to nothing live", (_name, payload) => {
      const md = renderMarkdown(hostileDoc(payload, assembled));
      expect(isInertMarkdown(md)).toBe(true);
      expect(controlBytes(md)).toEqual([]);
      expect(liveContent(markdownToHtml(md))).toEqual([]);
    });

    it("every hostile input at once: loaded with scripts enabled, neither report runs anything", async () => {
      const payload = HOSTILE.map(([, p]) => p).join("\n\n");
      const doc = hostileDoc(payload, assembled);
      const html = renderHtml(doc);
      expect(liveContent(html, { requireCsp: true })).toEqual([]);
      expect(await scriptCalls(html)).toBe(0);
      const md = markdownToHtml(renderMarkdown(doc));
      expect(liveContent(md)).toEqual([]);
      expect(await scriptCalls(md)).toBe(0);
      // The same page without the defences runs the payloads: the check can see them.
      expect(await scriptCalls(markdownToHtml(payload))).toBeGreaterThan(0);
    });
  });

  it.each(HOSTILE)(
    "%s: the JSON bundle's report text is inert and escapes control bytes",
    (_name, payload) => {
      const json = renderJsonBundle(hostileDoc(payload, true));
      expect(controlBytes(json)).toEqual([]);
      const bundle = JSON.parse(json) as { report: { markdown: string; body: string } };
      expect(isInertMarkdown(bundle.report.markdown)).toBe(true);
      expect(liveContent(markdownToHtml(bundle.report.markdown))).toEqual([]);
    },
  );

  it.each(HOSTILE)("%s: safeMarkdown is idempotent and inert", (_name, payload) => {
    const once = safeMarkdown(`Text ${payload} more`);
    expect(safeMarkdown(once)).toBe(once);
    expect(isInertMarkdown(once)).toBe(true);
  });

  it("hostile markup reads as text rather than disappearing", async () => {
    const html = renderHtml(hostileDoc("<img src=x onerror=alert(1)> [click](javascript:alert(1))", true));
    const text = parseHtml(html).body.textContent ?? "";
    expect(text).toContain("<img src=x onerror=alert(1)>");
    expect(text).toContain("[click](javascript:alert(1))");
  });

  it("a hostile source URL or path in the references stays text", () => {
    for (const url of ["javascript:alert(1)", "https://ok.example/a> <img src=x onerror=alert(1)>"]) {
      const { registry, id } = registryWith("T", EXCERPT_TEXT, url);
      const cited = citationPass({ parts: [{ text: `Claim [${id}].`, allowed: "all" }], lookup: registry });
      const md = safeMarkdown(cited.markdown);
      expect(isInertMarkdown(md)).toBe(true);
      expect(liveContent(markdownToHtml(md))).toEqual([]);
    }
  });
});

describe("the structure writers produce survives", () => {
  const benign = [
    "# Report title",
    "",
    "## Findings",
    "",
    "Adoption **grew** by _12 percent_ in 2025 [1]. Use `Vec<T>` or `a < b` in code [1, 2].",
    "",
    "- first item with a [link](https://example.org/x?a=1&b=2)",
    "- second item, mail <mailto:team@example.org> and <https://example.org>",
    "",
    "| Year | Share |",
    "|------|------:|",
    "| 2024 | 10% |",
    "",
    "> A quote with an [in-document link](#references).",
    "",
    "```ts",
    "const x: Array<string> = [];",
    "```",
    "",
    "![chart](https://example.org/chart.png)",
    "",
  ].join("\n");

  it("leaves benign Markdown exactly as written", () => {
    expect(safeMarkdown(benign)).toBe(benign);
  });

  it("renders headings, emphasis, lists, tables, code, links, images and citations", async () => {
    const { registry, id } = registryWith("Alpha", EXCERPT_TEXT);
    const cited = citationPass({
      parts: [{ text: `Claim [${id}].\n\n${benign.split("\n").slice(2).join("\n")}`, allowed: "all" }],
      lookup: registry,
    });
    const body = safeMarkdown(`# Report title\n\n${cited.body}`);
    const doc = {
      ...hostileDoc("", true),
      body,
      markdown: body,
      notice: undefined,
      references: cited.references,
      evidenceByNumber: cited.evidenceByNumber,
    } as ReportDocument;
    // Images are kept here on request; by default they are links (markdown-images tests).
    const html = renderHtml(doc, { remoteImages: "keep" });
    expect(liveContent(html, { requireCsp: true })).toEqual([]);
    const d = parseHtml(html);
    expect(d.querySelector("h2")?.textContent).toBe("Findings");
    expect(d.querySelector("strong")?.textContent).toBe("grew");
    expect(d.querySelector("em")?.textContent).toBe("12 percent");
    expect([...d.querySelectorAll("code")].map((c) => c.textContent)).toContain("Vec<T>");
    expect(d.querySelector("pre code")?.textContent).toContain("Array<string>");
    expect(d.querySelectorAll("ul > li")).toHaveLength(2);
    expect(d.querySelector("table td")?.textContent).toBe("2024");
    expect(d.querySelector('a[href="https://example.org/x?a=1&b=2"]')?.getAttribute("rel")).toBe(
      "noopener noreferrer",
    );
    expect(d.querySelector('a[href="mailto:team@example.org"]')).not.toBeNull();
    expect(d.querySelector('a[href="#references"]')).not.toBeNull();
    expect(d.querySelector('img[src="https://example.org/chart.png"]')).not.toBeNull();
    expect(d.querySelector('sup.cites a.cite[href="#ref-1"]')?.getAttribute("title")).toContain(EXCERPT_TEXT);
    expect(d.querySelector("ol.references li#ref-1 a")?.getAttribute("href")).toBe(
      "https://source.example/a",
    );
  });
});

describe("isSafeLinkTarget", () => {
  it.each([
    ["https://example.org", true],
    ["HTTP://example.org", true],
    ["mailto:a@example.org", true],
    ["#ref-1", true],
    ["&#35;ref-1", true],
    ["javascript:alert(1)", false],
    [" JaVaScRiPt:alert(1)", false],
    ["java\nscript:alert(1)", false],
    ["&#x6A;avascript:alert(1)", false],
    ["&amp;#x6A;avascript:alert(1)", false],
    ["data:text/html,x", false],
    ["vbscript:x", false],
    ["//evil.example", false],
    ["relative/path", false],
    ["", false],
    ["https&colon;//example.org", true],
    ["javascript&colon;alert(1)", false],
    ["\u200bjavascript:alert(1)", false],
  ])("%j → %s", (target, safe) => {
    expect(isSafeLinkTarget(target)).toBe(safe);
  });
});
