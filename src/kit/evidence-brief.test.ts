import { describe, expect, it } from "vitest";
import type { Evidence, Source } from "../core/source.ts";
import { contentWords } from "../core/text.ts";
import { briefEvidence, focusExcerpt } from "./evidence-brief.ts";

const focus = (text: string) => new Set(contentWords(text));

describe("focusExcerpt", () => {
  const text = [
    "The company was founded in 1998 in Shenzhen.",
    "Its battery cell costs fell to 80 dollars per kilowatt-hour in 2024.",
    "The founder collects paintings.",
    "Analysts expect battery costs to fall below 70 dollars by 2027.",
  ].join(" ");

  it("returns a text within the limit whole, whitespace collapsed", () => {
    expect(focusExcerpt("One  sentence.\n Two.", focus("x"), 100)).toBe("One sentence. Two.");
  });

  it("keeps the sentences that share most words with the focus, in page order, marking gaps", () => {
    const out = focusExcerpt(text, focus("battery costs"), 140);
    expect(out).toBe(
      "… Its battery cell costs fell to 80 dollars per kilowatt-hour in 2024. … Analysts expect battery costs to fall below 70 dollars by 2027.",
    );
    expect(out.length).toBeLessThanOrEqual(150);
  });

  it("keeps the head when nothing matches the focus", () => {
    const out = focusExcerpt(text, focus("unrelated topic"), 60);
    expect(out).toBe("The company was founded in 1998 in Shenzhen. …");
  });

  it("cuts a single sentence longer than the limit", () => {
    const out = focusExcerpt(`${"word ".repeat(100)}end.`, focus("word"), 50);
    expect(out.length).toBeLessThanOrEqual(51);
    expect(out.endsWith("…")).toBe(true);
  });
});

describe("briefEvidence", () => {
  const sources: Record<string, Source> = {
    s1: {
      id: "s1",
      title: "A long page title about batteries",
      publishedAt: "2025-03-01T00:00:00Z",
    } as Source,
    s2: { id: "s2", title: "Other page" } as Source,
  };
  const ev = (id: string, sourceId: string, text: string) => ({ id, sourceId, text }) as Evidence;

  it("names each source once, above its excerpts in order of first appearance, with the ids to cite", () => {
    const block = briefEvidence(
      [ev("E1", "s1", "First excerpt."), ev("E2", "s2", "Second excerpt."), ev("E3", "s1", "Third excerpt.")],
      (id) => sources[id],
    );
    expect(block.split("\n")).toEqual([
      "Source: A long page title about batteries (2025-03-01)",
      "[E1] First excerpt.",
      "[E3] Third excerpt.",
      "Source: Other page",
      "[E2] Second excerpt.",
    ]);
  });

  it("cuts long titles", () => {
    const block = briefEvidence([ev("E1", "s1", "x.")], (id) => sources[id], { titleChars: 12 });
    expect(block.split("\n")[0]).toBe("Source: A long page… (2025-03-01)");
  });

  // A search snippet of a page (cut mid-word) and the two sentences read from it; the same first
  // sentence from another page.
  const snippet = ev("E1", "s1", "Battery costs fell 12 percent in 2025. Analysts expect costs to keep fall");
  const first = ev("E2", "s1", "Battery costs fell 12 percent in 2025.");
  const second = ev("E3", "s1", "Analysts expect costs to keep falling by 2030.");
  const elsewhere = ev("E4", "s2", "Battery costs fell 12 percent in 2025.");

  it("shows each piece of text of a source once: a snippet whose sentences were read is left out", () => {
    const block = briefEvidence([snippet, first, second, elsewhere], (id) => sources[id]);
    expect(block.split("\n")).toEqual([
      "Source: A long page title about batteries (2025-03-01)",
      "[E2] Battery costs fell 12 percent in 2025.",
      "[E3] Analysts expect costs to keep falling by 2030.",
      "Source: Other page",
      "[E4] Battery costs fell 12 percent in 2025.",
    ]);
  });

  it("leaves out a sentence a longer excerpt of its source shows whole", () => {
    const block = briefEvidence([snippet, first], (id) => sources[id]);
    expect(block.split("\n").slice(1)).toEqual([
      "[E1] Battery costs fell 12 percent in 2025. Analysts expect costs to keep fall",
    ]);
  });

  it("keeps a left-out id that must stay citable listed, naming the ids that show its text", () => {
    const keep = new Set(["E1", "E2"]);
    expect(
      briefEvidence([snippet, first, second], (id) => sources[id], { keep })
        .split("\n")
        .slice(1),
    ).toEqual([
      "[E1] (its text is in E2, E3)",
      "[E2] Battery costs fell 12 percent in 2025.",
      "[E3] Analysts expect costs to keep falling by 2030.",
    ]);
    expect(
      briefEvidence([snippet, first], (id) => sources[id], { keep })
        .split("\n")
        .slice(1),
    ).toEqual([
      "[E1] Battery costs fell 12 percent in 2025. Analysts expect costs to keep fall",
      "[E2] (its text is in E1)",
    ]);
  });

  it("shows every excerpt when asked to keep repeats", () => {
    const block = briefEvidence([snippet, first, second], (id) => sources[id], { repeats: true });
    expect([...block.matchAll(/^\[(E\d)\]/gm)].map((m) => m[1])).toEqual(["E1", "E2", "E3"]);
  });
});
