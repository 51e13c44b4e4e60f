import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import { citationProblems, finalAnswerProblems, markdownProblems } from "./report-format.ts";

const kinds = (problems: { kind: string }[]) => problems.map((p) => p.kind);
const REFS = "\n\n## References\n\n1. A. <https://a.example/>\n";
const withRefs = (body: string) => `# T\n\n${body}${REFS}`;

describe("v_md: what counts as a Markdown error", () => {
  it("reads multi-digit list numbers: 9, 10, 11 is consecutive, 9, 10, 12 is not", () => {
    expect(markdownProblems("# T\n\n9. a\n10. b\n11. c\n")).toEqual([]);
    expect(markdownProblems("# T\n\n9. a\n10. b\n12. c\n")).toEqual([
      { kind: "list-numbering", message: "an ordered list is numbered 9, 10, 12" },
    ]);
    expect(markdownProblems("# T\n\n1) a\n2) b\n")).toEqual([]);
  });

  it("checks an ordered list inside a block quote", () => {
    expect(kinds(markdownProblems("# T\n\n> Quoted:\n>\n> 1. a\n> 3. b\n"))).toEqual(["list-numbering"]);
    expect(markdownProblems("# T\n\n> 1. a\n> 2. b\n")).toEqual([]);
  });

  it("reports only invalid tables, naming the table's line and its first problem", () => {
    const valid = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
    expect(markdownProblems(valid)).toEqual([]);
    expect(markdownProblems(`${valid}\nText.\n\n| c | d |\n|---|---|\n| 1 | 2 | 3 |\n`)).toEqual([
      { kind: "table", message: "table at line 9: row has 3 cells, the header 2" },
    ]);
  });

  it("counts skipped heading levels only, not empty or duplicate sections", () => {
    expect(markdownProblems("# T\n\n## A\n\n## A\n\nText.\n")).toEqual([]);
    expect(markdownProblems("# T\n\n### Deep\n\nText.\n")).toEqual([
      { kind: "heading-level", message: "level 3 heading directly under level 1" },
    ]);
  });
});

describe("v_ref: citation forms a writer leaves behind", () => {
  it("resolves every number of every marker form against the reference list", () => {
    for (const [body, missing] of [
      ["Claim [12].", "citation 12"],
      ["Claim [1,3].", "citation 3"],
      ["Claim [1 , 3].", "citation 3"],
      ["Claim [1, 12].", "citation 12"],
      ["Claim [4†source L1-L9].", "citation 4"],
      ["Claim [^5].", "citation 5"],
      ["Claim [1]. Other [2, 3].", "citations 2, 3"],
    ] as const) {
      expect(citationProblems(withRefs(body)), body).toEqual([
        { kind: "citation-unresolved", message: `${missing} without a reference entry` },
      ]);
    }
    expect(citationProblems(withRefs("Claim [1]. See [the docs](https://d.example/) and [1, 1]."))).toEqual(
      [],
    );
  });

  it("finds evidence ids left in the text, alone or listed, and names the first three", () => {
    for (const id of ["[E1]", "[E12]", "[ E3 ]", "[E1,E2]", "[E1, E2]", "[E4 ; E5]", "[E3, E12]"]) {
      expect(citationProblems(withRefs(`Claim [1] ${id}.`)), id).toEqual([
        { kind: "raw-evidence-id", message: `evidence ids left in the text: ${id}` },
      ]);
    }
    expect(citationProblems(withRefs("A [E1]. B [E2]. C [E3]. D [E4].")).map((p) => p.message)).toEqual([
      "evidence ids left in the text: [E1] [E2] [E3]",
    ]);
    expect(citationProblems(withRefs("Not ids: [E0], [E], [Ex1]."))).toEqual([]);
  });

  it("flags [citation needed] in any case, with its message", () => {
    expect(citationProblems(withRefs("Claim [Citation Needed]."))).toEqual([
      { kind: "citation-needed", message: "a [citation needed] flag" },
    ]);
  });

  it("ignores what code blocks hold, and a code span does not join the text around it into a marker", () => {
    const code = "```\nconst ids = [E12];\nx[7] = 1; // [citation needed]\n```";
    expect(citationProblems(withRefs(`Claim [1].\n\n${code}\n\nMore [1].`))).toEqual([]);
    expect(citationProblems(withRefs("Index a[```i```7] is set."))).toEqual([]);
  });
});

describe("v_tag: a stray or missing tag", () => {
  it("refuses an extra opening or closing tag even around text", () => {
    const bad = "the answer is not enclosed in one <final_answer>…</final_answer> pair";
    for (const answer of [
      "<final_answer>a<final_answer>b</final_answer>",
      "<final_answer>a</final_answer></final_answer>",
    ])
      expect(finalAnswerProblems(answer, "final_answer"), answer).toEqual([
        { kind: "final-answer-tag", message: bad },
      ]);
    expect(finalAnswerProblems(null, "final_answer")).toEqual([
      { kind: "final-answer-tag", message: "no final answer" },
    ]);
  });

  it("refuses a tag that is not a tag name with INPUT_INVALID", () => {
    try {
      finalAnswerProblems("x", "a b");
      expect.unreachable();
    } catch (error) {
      expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
      expect((error as Error).message).toBe("not a tag name: a b");
    }
  });
});
