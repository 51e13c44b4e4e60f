import { describe, expect, it } from "vitest";
import { citationProblems, finalAnswerProblems, markdownProblems } from "./report-format.ts";

const kinds = (problems: { kind: string }[]) => problems.map((p) => p.kind);

describe("Eq. 11 violations", () => {
  it("v_md: ordered lists numbered out of sequence, invalid tables, skipped heading levels", () => {
    expect(markdownProblems("# T\n\n## A\n\n1. a\n2. b\n3. c\n\nText.\n")).toEqual([]);
    expect(markdownProblems("# T\n\n1. a\n1. b\n1. c\n")).toEqual([]); // lazy numbering renders fine
    expect(kinds(markdownProblems("# T\n\n1. a\n3. b\n"))).toEqual(["list-numbering"]);
    expect(kinds(markdownProblems("# T\n\n- item\n  1. a\n  5. b\n"))).toEqual(["list-numbering"]); // nested
    expect(kinds(markdownProblems("# T\n\n| a | b |\n|---|---|\n| 1 | 2 | 3 |\n"))).toEqual(["table"]);
    expect(kinds(markdownProblems("# T\n\n### Deep\n\nText.\n"))).toEqual(["heading-level"]);
    expect(markdownProblems("# T\n\n```\n1. a\n3. b\n```\n")).toEqual([]); // code is not a list
  });

  it("v_ref: citations without a reference entry, evidence ids left over, [citation needed]", () => {
    const refs = "\n\n## References\n\n1. A. <https://a.example/>\n";
    expect(citationProblems(`# T\n\nClaim [1].${refs}`)).toEqual([]);
    expect(kinds(citationProblems(`# T\n\nClaim [1]. Other [2, 3].${refs}`))).toEqual([
      "citation-unresolved",
    ]);
    expect(citationProblems(`# T\n\nClaim [2].${refs}`)[0]!.message).toMatch(/citation 2 without/);
    expect(kinds(citationProblems(`# T\n\nClaim [E12].${refs}`))).toEqual(["raw-evidence-id"]);
    expect(kinds(citationProblems(`# T\n\nClaim [citation needed].${refs}`))).toEqual(["citation-needed"]);
  });

  it("v_tag: exactly one <final_answer> pair around text when a tag is asked for; else only an answer", () => {
    expect(finalAnswerProblems("# Report", null)).toEqual([]);
    expect(kinds(finalAnswerProblems(null, null))).toEqual(["final-answer-tag"]);
    expect(kinds(finalAnswerProblems("  ", null))).toEqual(["final-answer-tag"]);
    expect(finalAnswerProblems("think…<final_answer># R</final_answer>", "final_answer")).toEqual([]);
    for (const bad of [
      "# R",
      "<final_answer># R",
      "<final_answer> </final_answer>",
      "<final_answer>a</final_answer><final_answer>b</final_answer>",
      "</final_answer>x<final_answer>",
    ]) {
      expect(kinds(finalAnswerProblems(bad, "final_answer")), bad).toEqual(["final-answer-tag"]);
    }
    expect(() => finalAnswerProblems("x", "a(b")).toThrow(/not a tag name/);
  });
});
