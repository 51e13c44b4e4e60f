import { describe, expect, it } from "vitest";
import type { RunView } from "./api.ts";
import { answerPieces, citationHref, followUpsOf, httpUrl, parentOf } from "./follow-up-logic.ts";

const run = (id: string, strategy: string, createdAt: string, options: unknown = {}): RunView =>
  ({
    id,
    strategy,
    createdAt,
    options,
    query: id,
    status: "completed",
    active: false,
    reports: {},
  }) as RunView;

describe("follow-up box logic", () => {
  it("finds a run's follow-ups by the run their options name, oldest first", () => {
    const runs = [
      run("c2", "follow-up", "2026-01-03", { strategyOptions: { about: "p" } }),
      run("x", "smtl", "2026-01-02", { strategyOptions: { about: "p" } }),
      run("c1", "follow-up", "2026-01-02", { strategyOptions: { about: "p" } }),
      run("o", "follow-up", "2026-01-02", { strategyOptions: { about: "other" } }),
      run("n", "follow-up", "2026-01-02", { strategyOptions: { about: 7 } }),
    ];
    expect(followUpsOf(runs, "p").map((r) => r.id)).toEqual(["c1", "c2"]);
    expect(parentOf(runs[0]!)).toBe("p");
    // Only a follow-up run has a parent, and only a string names one.
    expect(parentOf(runs[1]!)).toBeNull();
    expect(parentOf(runs[4]!)).toBeNull();
    expect(parentOf({ strategy: "follow-up" })).toBeNull();
  });

  it("splits an answer into text and citation brackets", () => {
    expect(answerPieces("Topic 2 grew [1]. Both [1, 3] agree [x] [2]")).toEqual([
      { text: "Topic 2 grew " },
      { numbers: [1] },
      { text: ". Both " },
      { numbers: [1, 3] },
      { text: " agree [x] " },
      { numbers: [2] },
    ]);
    expect(answerPieces("")).toEqual([]);
    expect(answerPieces("<b>no numbers</b>")).toEqual([{ text: "<b>no numbers</b>" }]);
  });

  it("links a number to the report's References entry, else to the source's http(s) address only", () => {
    const citations = [
      { number: 1, title: "Page 2", locator: "https://example.org/2" },
      { number: 4, title: "New", locator: "https://example.org/new" },
      { number: 5, title: "Local", locator: "notes/a.md#x" },
      { number: 6, title: "Bad", locator: "javascript:alert(1)" },
    ];
    const report = new Set([1, 2, 3]);
    expect(citationHref(1, report, citations)).toBe("#ref-1");
    expect(citationHref(4, report, citations)).toBe("https://example.org/new");
    expect(citationHref(5, report, citations)).toBeNull();
    expect(citationHref(6, report, citations)).toBeNull();
    expect(citationHref(9, report, citations)).toBeNull();
    expect(httpUrl("HTTP://x.org")).toBe("HTTP://x.org");
    expect(httpUrl(" https://x.org")).toBeNull();
  });
});
