/**
 * More of the refresh's passage comparison: every entity a page may carry decodes (and one naming
 * no character stays text), table cells without spaces around their pipes still part, links whose
 * targets hold parentheses or titles keep only their text, a marker ending a text goes, a figure
 * of four characters between ellipses is looked for, a short passage is found whole, and a piece
 * repeated in a snippet must be repeated in the page.
 */

import { describe, expect, it } from "vitest";
import { normaliseText, passageFound, passagePieces } from "./refresh-text.ts";

describe("normaliseText entities", () => {
  it("decodes named entities and code points in range, and leaves one naming no character as text", () => {
    expect(normaliseText("&quot;Q&quot; &apos;A&apos; a&nbsp;b &AMP; &#65;&#x42;")).toBe(`"q" 'a' a b & ab`);
    expect(normaliseText("top &#x10FFFF; end")).toBe("top \u{10ffff} end");
    expect(normaliseText("zero &#0; and &#x0; stay")).toBe("zero &#0; and &#x0; stay");
    expect(normaliseText("past &#x110000; and &#1114112; stay")).toBe("past &#x110000; and &#1114112; stay");
    const huge = `&#${"9".repeat(400)};`;
    expect(normaliseText(`a ${huge} b`)).toBe(`a ${huge} b`);
  });
});

describe("normaliseText markup", () => {
  it("parts table cells whatever the spacing around their pipes", () => {
    expect(normaliseText("|Year|Share|\n|2025 |40%|\n| 2026| 45% |")).toBe("year share 2025 40% 2026 45%");
    expect(passageFound("2025 40%", "| Year | Share |\n|2025|40%|")).toBe(true);
  });

  it("keeps only the text of links whose targets hold parentheses or a title", () => {
    expect(normaliseText("see [Lithium](https://en.wikipedia.org/wiki/Lithium_(element)) now")).toBe(
      "see lithium now",
    );
    expect(normaliseText('a [chart](https://x.org/c.png  "The chart, 2025") b')).toBe("a chart b");
    expect(normaliseText('a [chart](https://x.org/c.png\n"Title") b')).toBe("a chart b");
  });

  it("removes a heading, list or quote marker ending the text", () => {
    expect(normaliseText("Outlook\n#")).toBe("outlook");
    expect(normaliseText("Rose 5 percent -")).toBe("rose 5 percent");
    expect(normaliseText("quoted >")).toBe("quoted");
  });
});

describe("passage pieces and matching", () => {
  it("looks for a piece of four characters, a figure between two cuts", () => {
    expect(passagePieces("…ed 2025 fi…")).toEqual(["2025"]);
    expect(passageFound("…ed 2025 fi…", "Results of 2024 only.")).toBe(false);
    expect(passageFound("…ed 2025 fi…", "Results of 2025 only.")).toBe(true);
  });

  it("finds a passage too short for a piece when its whole form is there", () => {
    expect(passagePieces("Q1")).toEqual([]);
    expect(passageFound("Q1", "Revenue in Q1 rose.")).toBe(true);
    expect(passageFound("Q2", "Revenue in Q1 rose.")).toBe(false);
  });

  it("finds a passage at the very start of the text", () => {
    expect(passageFound("Cell costs fell", "Cell costs fell to 115 USD/kWh.")).toBe(true);
    expect(passageFound("…costs fell … to 115…", "Costs fell to 115 USD/kWh.")).toBe(true);
  });

  it("finds a piece repeated in a snippet only where the page repeats it", () => {
    expect(passageFound("…prices rose again … prices rose again…", "Prices rose again this year.")).toBe(
      false,
    );
    expect(
      passageFound("…prices rose again … prices rose again…", "Prices rose again. Later, prices rose again."),
    ).toBe(true);
  });
});
