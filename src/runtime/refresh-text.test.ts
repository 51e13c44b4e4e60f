/**
 * The refresh's passage comparison: Markdown escapes, emphasis, white space, case and Unicode
 * forms do not hide a passage that is still there; a cut snippet is found by its core; a changed
 * figure or sentence is not found.
 */

import { describe, expect, it } from "vitest";
import { normaliseText, passageFound, passagePieces } from "./refresh-text.ts";

/** A page as the fetcher's Markdown gives it: escapes, emphasis, a list, a link, paragraphs. */
const PAGE = [
  "# Battery report",
  "",
  "1\\. \\*\\*Cell costs\\*\\* fell to 115 USD/kWh in 2025 \\[5\\], the survey\\_2025 says.",
  "",
  "Analysts credit *cheaper* lithium — and __wider__ adoption across [all regions](https://example.org/regions).",
  "",
  "\\- Storage\u00a0deployments   doubled\n  in \\#2 markets.",
].join("\n");

describe("normaliseText", () => {
  it("removes Markdown escapes, emphasis and code markers, link targets and line-start markers", () => {
    expect(normaliseText("1\\. \\*\\*Cell costs\\*\\* \\[5\\] a\\_b \\#2 \\(x\\)")).toBe(
      "1. cell costs [5] a_b #2 (x)",
    );
    expect(normaliseText("**Bold** and _it_ and `code` and ~~gone~~")).toBe("bold and it and code and gone");
    expect(normaliseText('see [the table](https://x.org/t "T") and ![chart](c.png)')).toBe(
      "see the table and chart",
    );
    expect(normaliseText("## Heading\n- item\n> quote\n| a | b |")).toBe("heading item quote a b");
    // A word's inner underscore stays: snake_case is a word, not emphasis.
    expect(normaliseText("snake_case")).toBe("snake_case");
  });

  it("folds white space, case, Unicode compatibility forms, typographic quotes, dashes and entities", () => {
    expect(normaliseText("  A\u00a0b\n\n\tC  ")).toBe("a b c");
    expect(normaliseText("ＡＢＣ ﬁne ½")).toBe("abc fine 1⁄2");
    expect(normaliseText("“It’s” – fine")).toBe('"it\'s" - fine');
    expect(normaliseText("R&amp;D &lt;b&gt; &#39;x&#x27; &bogus;")).toBe("r&d <b> 'x' &bogus;");
  });
});

describe("passagePieces", () => {
  it("cuts a snippet at its ellipses and drops the partial word at each cut", () => {
    expect(passagePieces("…ured growth of 13 percent … in 2025 accor...")).toEqual([
      "growth of 13 percent",
      "in 2025",
    ]);
    expect(passagePieces("A whole sentence.")).toEqual(["a whole sentence."]);
    expect(passagePieces("... of ...")).toEqual([]);
  });
});

describe("passageFound", () => {
  it("finds a plain snippet in a page whose text escapes Markdown", () => {
    expect(
      passageFound("1. **Cell costs** fell to 115 USD/kWh in 2025 [5], the survey_2025 says.", PAGE),
    ).toBe(true);
    expect(passageFound("- Storage deployments doubled in #2 markets.", PAGE)).toBe(true);
    // A snippet runs an escaped heading (`\# …` in the page, a line of its own) into the text.
    expect(
      passageFound(
        "…across all regions. # Outlook for 2026 is…",
        "across [all regions](u).\n\n\\# Outlook for 2026 is mixed.",
      ),
    ).toBe(true);
  });

  it("finds a snippet running across paragraphs, cut at both ends, with or without ellipses", () => {
    const across =
      "…2025 [5], the survey_2025 says. Analysts credit cheaper lithium — and wider adoption across all reg…";
    expect(passageFound(across, PAGE)).toBe(true);
    // Cut mid-word without a mark: the partial words are still substrings of the page.
    expect(
      passageFound("ost fell to 115 USD/kWh in 2025 [5], the surv", PAGE.replace("Cell costs", "Cell cost")),
    ).toBe(true);
    // Pieces joined by an ellipsis are found in order, not out of it.
    expect(passageFound("Cell costs fell … wider adoption", PAGE)).toBe(true);
    expect(passageFound("wider adoption … Cell costs fell", PAGE)).toBe(false);
  });

  it("finds a page excerpt quoted from the escaped text itself", () => {
    expect(passageFound("1\\. \\*\\*Cell costs\\*\\* fell to 115 USD/kWh in 2025 \\[5\\]", PAGE)).toBe(true);
  });

  it("does not find a passage whose figure or wording changed", () => {
    expect(passageFound("1. **Cell costs** fell to 105 USD/kWh in 2025 [5]", PAGE)).toBe(false);
    expect(passageFound("…costs fell to 115 USD/kWh in 2026 [5], the…", PAGE)).toBe(false);
    expect(passageFound("Analysts blame costly lithium and narrower adoption", PAGE)).toBe(false);
    // Only a piece too short to count: the whole normalised text must be there.
    expect(passageFound("… of …", PAGE)).toBe(false);
    expect(passageFound("", PAGE)).toBe(false);
  });
});
