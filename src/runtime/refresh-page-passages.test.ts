/**
 * The passages a refresh cuts from a changed or new page: its paragraphs verbatim (split at blank
 * lines, even ones holding spaces), short lines, headings, link lists and tables left out, a long
 * paragraph cut at its last sentence end within 600 characters (or at 600 when no sentence ends
 * far enough in), and no more than four.
 */

import { describe, expect, it } from "vitest";
import { passagesOf } from "./refresh-pages.ts";

/** A paragraph of exactly `n` characters. */
const exactly = (n: number, word = "x") => `${word} ${"y".repeat(n - word.length - 2)}.`;

describe("passagesOf", () => {
  it("keeps paragraphs of 40 characters or more, trimmed and verbatim, split at any blank line", () => {
    const forty = exactly(40, "Forty");
    const short = exactly(39, "Short");
    expect(forty).toHaveLength(40);
    expect(short).toHaveLength(39);
    const text = `  ${forty}  \n \t \n${short}\n\nA **bold** claim \\[5\\] about #2 markets | and more words.\n`;
    expect(passagesOf(text)).toEqual([forty, "A **bold** claim \\[5\\] about #2 markets | and more words."]);
  });

  it("leaves out headings, link lists and tables however long, but keeps other lists and brackets", () => {
    const long = "words that make this line long enough to count as a passage";
    const text = [
      `# Heading ${long}`,
      `- [Link one](https://a.org) ${long}`,
      `* [Link two](https://b.org) ${long}`,
      `| a | b | ${long} |`,
      `- A plain list item, ${long}`,
      `A [bracketed] remark, ${long}`,
    ].join("\n\n");
    expect(passagesOf(text)).toEqual([`- A plain list item, ${long}`, `A [bracketed] remark, ${long}`]);
  });

  it("keeps a paragraph of 600 characters whole and cuts a longer one at its last sentence end", () => {
    const six = exactly(600, "Six");
    expect(passagesOf(six)).toEqual([six]);
    const sixSentences = "A sentence of filler words. ".repeat(22).slice(0, 600);
    expect(passagesOf(sixSentences)).toEqual([sixSentences]);
    const sentence = `${"A sentence of filler words. ".repeat(30)}`.trim();
    expect(sentence.length).toBeGreaterThan(600);
    const [cut] = passagesOf(sentence);
    expect(cut).toMatch(/words\.$/);
    expect(cut!.length).toBeLessThanOrEqual(600);
    expect(sentence.startsWith(cut!)).toBe(true);
    expect(sentence.slice(cut!.length, cut!.length + 2)).toBe(" A");
    // A sentence ending at a line break inside the paragraph is a cut point too, the later one wins.
    const broken = `${"b".repeat(300)}. ${"c".repeat(200)}.\n${"d".repeat(200)}`;
    expect(passagesOf(broken)).toEqual([`${"b".repeat(300)}. ${"c".repeat(200)}.`]);
    const spaced = `${"b".repeat(200)}.\n${"c".repeat(300)}. ${"d".repeat(200)}`;
    expect(passagesOf(spaced)).toEqual([`${"b".repeat(200)}.\n${"c".repeat(300)}.`]);
  });

  it("cuts at 600 characters when no sentence ends after the first 80", () => {
    const at = (end: number) => `${"a".repeat(end)}. ${"b".repeat(700)}`;
    expect(passagesOf(at(80))).toEqual([at(80).slice(0, 600)]);
    expect(passagesOf(at(81))).toEqual([`${"a".repeat(81)}.`]);
    expect(passagesOf("z".repeat(700))).toEqual(["z".repeat(600)]);
  });

  it("gives the first four passages at most", () => {
    const paragraphs = [1, 2, 3, 4, 5].map((n) => `Paragraph number ${n} says enough to be a passage.`);
    expect(passagesOf(paragraphs.join("\n\n"))).toEqual(paragraphs.slice(0, 4));
    expect(passagesOf(paragraphs.slice(0, 3).join("\n\n"))).toEqual(paragraphs.slice(0, 3));
  });
});
