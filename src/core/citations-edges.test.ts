import { describe, expect, it } from "vitest";
import {
  CITATION_NEEDED,
  citationPass,
  citedNumbers,
  type Reference,
  renderReferences,
} from "./citations.ts";
import type { EvidenceLookup } from "./evidence-registry.ts";
import { EvidenceRegistry } from "./evidence-registry.ts";

const by = { tool: "web_search", callId: "t1" };

/** E1, E2 of S1 (web); E3 of S2 (local, page 3); E4 of S3 (web, blank title). */
function registry(): EvidenceRegistry {
  const r = new EvidenceRegistry();
  r.addSource({
    kind: "web",
    url: "https://a.example/x",
    title: "  Alpha\n  page ",
    fetchedAt: "2026-11-20T10:00:00Z",
  });
  r.addSource({
    kind: "local",
    path: "docs/r.pdf",
    anchor: "page=3",
    title: "Report",
    fetchedAt: "2026-11-22T08:00:00Z",
  });
  r.addSource({ kind: "web", url: "https://c.example/", title: " \n", fetchedAt: "2026-11-23" });
  r.addEvidence({ sourceId: "S1", text: "one", retrievedBy: by });
  r.addEvidence({ sourceId: "S1", text: "two", retrievedBy: by });
  r.addEvidence({ sourceId: "S2", text: "three", retrievedBy: by });
  r.addEvidence({ sourceId: "S3", text: "four", retrievedBy: by });
  return r;
}

const pass = (text: string, extra: Partial<Parameters<typeof citationPass>[0]> = {}) =>
  citationPass({ lookup: registry(), parts: [{ text, allowed: "all" }], ...extra });

describe("citationPass: bare numbers", () => {
  it.each([
    ["[12]", ["12"]],
    ["[3, 14]", ["3", "14"]],
    ["[2-4]", ["2", "4"]],
    ["[2–4]", ["2", "4"]],
    ["[ 7 ]", null],
  ])("drops %s and names every number in it", (token, numbers) => {
    const out = pass(`A claim ${token}.`);
    if (numbers === null) {
      expect(out.parts[0]).toBe(`A claim ${token}.`);
      expect(out.issues).toEqual([]);
      return;
    }
    expect(out.parts[0]).toBe("A claim.");
    expect(out.issues).toEqual(numbers.map((id) => ({ part: 0, token, id, reason: "bare-number" })));
    expect(out.citationCount).toBe(0);
  });

  it("drops bare numbers with blanks around their separators", () => {
    const out = pass("A [3 , 4] B");
    expect(out.parts[0]).toBe("A B");
    expect(out.issues.map((i) => i.id)).toEqual(["3", "4"]);
  });

  it("keeps link texts and reference-style definitions that look like numbers", () => {
    const text = "See [3](https://x.example) and [4]: https://y.example";
    expect(pass(text).parts[0]).toBe(text);
  });

  it("flags a bare number in flag mode, keeping the blank before it", () => {
    const out = pass("Claim [12] and [E1].", { mode: "flag" });
    expect(out.parts[0]).toBe(`Claim ${CITATION_NEEDED} and [1].`);
    expect(out.citationCount).toBe(1);
  });
});

describe("citationPass: evidence tokens", () => {
  it("reads blanks inside brackets, lower-case ids and every separator", () => {
    const out = pass("a [ e1 ] b [E3 ;E4] c [E4，E1] d [E1、 E3]");
    expect(out.parts[0]).toBe("a [1] b [2, 3] c [1, 3] d [1, 2]");
    expect(out.issues).toEqual([]);
    expect(out.citationCount).toBe(4);
  });

  it("reads every id of a token, ids of several digits included", () => {
    const out = pass("x [E1, E12] y [E3,E40]");
    expect(out.parts[0]).toBe("x [1] y [2]");
    expect(out.issues.map((i) => [i.token, i.id])).toEqual([
      ["[E1, E12]", "E12"],
      ["[E3,E40]", "E40"],
    ]);
  });

  it("cites a source once per token and lists each evidence id once under its number", () => {
    const out = pass("x [E2, E1, E2] y [E1]");
    expect(out.parts[0]).toBe("x [1] y [1]");
    expect(out.evidenceByNumber).toEqual({ 1: ["E2", "E1"] });
    expect(out.references).toHaveLength(1);
  });

  it("treats evidence whose source is missing as unknown", () => {
    const lookup: EvidenceLookup = {
      getEvidence: (id) => (id === "E1" ? { id, sourceId: "S9", text: "t", retrievedBy: by } : undefined),
      getSource: () => undefined,
    };
    const out = citationPass({ lookup, parts: [{ text: "x [E1].", allowed: "all" }] });
    expect(out.parts[0]).toBe("x.");
    expect(out.issues).toEqual([{ part: 0, token: "[E1]", id: "E1", reason: "unknown-evidence" }]);
  });

  it("checks the ids given to each part, in flag mode too", () => {
    const out = citationPass({
      lookup: registry(),
      mode: "flag",
      parts: [
        { text: "p0 [E1] [E3]", allowed: new Set(["E3"]) },
        { text: "p1 [E1]", allowed: "all" },
      ],
    });
    expect(out.parts).toEqual([`p0 ${CITATION_NEEDED} [1]`, "p1 [2]"]);
    expect(out.issues).toEqual([{ part: 0, token: "[E1]", id: "E1", reason: "not-given" }]);
  });

  it("keeps the blanks before a valid token and removes them with a dropped one", () => {
    expect(pass("a \t[E1] b [E9] c").parts[0]).toBe("a \t[1] b c");
  });
});

describe("citationPass: code", () => {
  it("moves tokens out of a ~~~ fence and cites after its closing line", () => {
    const out = pass("Data:\n~~~\nrow [E1]\n~~~\nafter");
    expect(out.parts[0]).toBe("Data:\n~~~\nrow\n~~~\n[1]\nafter");
  });

  it("closes an unclosed ``` fence before citing", () => {
    expect(pass("Data:\n```js\nx [E3] [E1]").parts[0]).toBe("Data:\n```js\nx\n```\n[1, 2]");
  });

  it("leaves a fence with no valid token as written but without its tokens", () => {
    expect(pass("```\nx [E9]\n```").parts[0]).toBe("```\nx\n```");
    expect(pass("```\nx [3] y\n```").parts[0]).toBe("```\nx [3] y\n```");
    expect(pass("```\nx [E9]\n```", { mode: "flag" }).parts[0]).toBe(`\`\`\`\nx\n\`\`\`\n${CITATION_NEEDED}`);
  });

  it("drops an inline span that held only an invalid token, and keeps spans with no token", () => {
    expect(pass("a `[E9]` b").parts[0]).toBe("a  b");
    expect(pass("a ``[E1]`` b").parts[0]).toBe("a [1] b");
    expect(pass("a ``x`y [E1]`` b").parts[0]).toBe("a ``x`y`` [1] b");
    expect(citedNumbers("``[1]`` and ``[2]``")).toEqual([]);
    expect(pass("a `x[1]` b `[E1]`").parts[0]).toBe("a `x[1]` b [1]");
    expect(pass("a `[E9]` b", { mode: "flag" }).parts[0]).toBe(`a ${CITATION_NEEDED} b`);
  });

  it("reads blanks and every separator inside code tokens too", () => {
    expect(pass("`f() [ E1 ,E3 ]` `g() [E1,E3]` `h() [E1 ；E3]`").parts[0]).toBe(
      "`f()` [1, 2] `g()` [1, 2] `h() [E1 ；E3]`",
    );
  });

  it("numbers the citation after code in order, whatever order its tokens cite in", () => {
    expect(pass("[E1] and `x [E3] [E2]`").parts[0]).toBe("[1] and `x` [1, 2]");
  });

  it("leaves code without a token alone, in flag mode too", () => {
    const out = pass("a `x` b\n```\ny\n```", { mode: "flag" });
    expect(out.parts[0]).toBe("a `x` b\n```\ny\n```");
    expect(out.issues).toEqual([]);
  });

  it("treats a span left with only blanks as the token's place, and keeps one left with a backtick", () => {
    expect(pass("a `` [E1] `` b").parts[0]).toBe("a [1] b");
    expect(pass("a `` ` [E1] `` b").parts[0]).toBe("a `` ` `` [1] b");
  });

  it("cites right after the closing marker of a fence of several lines", () => {
    expect(pass("~~~\na [E1]\nb [E3]\n~~~  \nz").parts[0]).toBe("~~~\na\nb\n~~~\n[1, 2]  \nz");
  });

  it("closes an unclosed fence that is only its marker and a token", () => {
    expect(pass("~~~\n[E1]").parts[0]).toBe("~~~\n~~~\n[1]");
    expect(pass("~~~ [E1]\n~~~").parts[0]).toBe("~~~\n~~~\n[1]");
  });
});

describe("citationPass: references and assembly", () => {
  it("squashes blanks in titles, uses the locator for a blank one and cuts the access date", () => {
    const out = pass("a [E1] b [E3] c [E4]");
    expect(out.references).toEqual([
      {
        number: 1,
        sourceId: "S1",
        kind: "web",
        title: "Alpha page",
        locator: "https://a.example/x",
        accessed: "2026-11-20",
      },
      {
        number: 2,
        sourceId: "S2",
        kind: "local",
        title: "Report",
        locator: "docs/r.pdf#page=3",
        accessed: "2026-11-22",
      },
      {
        number: 3,
        sourceId: "S3",
        kind: "web",
        title: "https://c.example/",
        locator: "https://c.example/",
        accessed: "2026-11-23",
      },
    ]);
  });

  it("joins parts with the separator, heads the references as asked, and trims the body end", () => {
    const out = citationPass({
      lookup: registry(),
      parts: [
        { text: "one [E1]", allowed: "all" },
        { text: "two\n\n\n", allowed: "all" },
      ],
      separator: "\n---\n",
      referencesHeading: "Sources",
      headingLevel: 3,
    });
    expect(out.body).toBe("one [1]\n---\ntwo\n\n\n");
    expect(out.referencesMarkdown).toBe(
      "### Sources\n\n1. Alpha page. <https://a.example/x> (accessed 2026-11-20)\n",
    );
    expect(out.markdown).toBe(`one [1]\n---\ntwo\n\n${out.referencesMarkdown}`);
    const plain = pass("nothing cited [E9]\n");
    expect(plain.markdown).toBe("nothing cited\n");
    expect(plain.referencesMarkdown).toBe("");
    expect(pass("x [E1]").referencesMarkdown.startsWith("## References\n\n1. ")).toBe(true);
  });
});

describe("renderReferences", () => {
  const ref = (locator: string, extra: Partial<Reference> = {}): Reference => ({
    number: 1,
    sourceId: "S1",
    kind: "web",
    title: "T",
    locator,
    accessed: "2026-01-01",
    ...extra,
  });

  it("puts an http(s) URL in angle brackets and anything else in a code span", () => {
    expect(renderReferences([ref("HTTPS://x.example/a")])).toContain("<HTTPS://x.example/a>");
    expect(renderReferences([ref("http://x.example/a b")])).toContain("`http://x.example/a b`");
    expect(renderReferences([ref("http://x.example/a")])).toContain("<http://x.example/a>");
    expect(renderReferences([ref("https://x.example/<a>")])).toContain("`https://x.example/<a>`");
    expect(renderReferences([ref("https://x.example/`a")])).toContain("``https://x.example/`a``");
    expect(renderReferences([ref("https://x.example/\\a")])).toContain("`https://x.example/\\a`");
    expect(renderReferences([ref("javascript:alert(1)")])).toContain("`javascript:alert(1)`");
    expect(renderReferences([ref("x https://x.example")])).toContain("`x https://x.example`");
  });

  it("fences a locator with a longer backtick run than it holds, padding edge backticks", () => {
    expect(renderReferences([ref("a``b", { kind: "local" })])).toBe(
      "## References\n\n1. T. ```a``b``` (local document, accessed 2026-01-01)\n",
    );
    expect(renderReferences([ref("`a`")])).toContain("`` `a` ``");
    expect(renderReferences([ref("a`")])).toContain("`` a` ``");
    expect(renderReferences([ref("`a")])).toContain("`` `a ``");
    expect(renderReferences([ref("dir/a\n b")])).toContain("`dir/a b`");
  });

  it("escapes Markdown and markup in titles", () => {
    expect(renderReferences([ref("https://x.example", { title: "a_b `c` \\ <i>" })])).toContain(
      "1. a\\_b \\`c\\` \\\\ &lt;i>. <https://x.example>",
    );
  });

  it("renders nothing for no references and numbers lines as given", () => {
    expect(renderReferences([])).toBe("");
    expect(
      renderReferences(
        [ref("https://x.example"), ref("https://y.example", { number: 2, title: "U" })],
        "R",
        1,
      ),
    ).toBe(
      "# R\n\n1. T. <https://x.example> (accessed 2026-01-01)\n2. U. <https://y.example> (accessed 2026-01-01)\n",
    );
  });
});

describe("citedNumbers", () => {
  it("collects numbers outside code, sorted and distinct, ignoring links and definitions", () => {
    expect(citedNumbers("a [12] b [3, 1] c [12]")).toEqual([1, 3, 12]);
    expect(citedNumbers("`[4]` and\n```\n[5]\n```\n~~~\n[6]\n~~~\n[7](x) [8]: y [9]")).toEqual([9]);
    expect(citedNumbers("[1,2] [E1]")).toEqual([]);
    expect(citedNumbers("[3, 14] [10]")).toEqual([3, 10, 14]);
  });
});
