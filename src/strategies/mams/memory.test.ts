/**
 * Unit tests of the mams memory rewrite (Eq. 4): the rewrite replaces the memory, a fact keeps
 * its evidence ids (given back when rewritten word for word without them), and the rules a
 * rewrite must keep — known ids, every fact sourced, within the budget, not emptied — with the
 * repair of one that still breaks them.
 */

import { describe, expect, it } from "vitest";
import {
  describeProblems,
  isClean,
  type MemoryFact,
  memoryTokens,
  readRewrite,
  repairRewrite,
  rewriteProblems,
} from "./memory.ts";

const old: MemoryFact[] = [
  { id: "F1", text: "Station A opened in 1901 [E1]", evidence: ["E1"] },
  { id: "F2", text: "Station B opened in 1902 [E2, E3]", evidence: ["E2", "E3"] },
];
const known = new Set(["E1", "E2", "E3", "E4"]);

describe("readRewrite", () => {
  it("numbers the rewritten facts afresh, drops repeats and reads each fact's evidence ids", () => {
    const { facts } = readRewrite(
      ["Stations A and B opened in 1901-1902 [E1, E2]", "x fact [E4]", "X  fact [E4]"],
      old,
    );
    expect(facts).toEqual([
      { id: "F1", text: "Stations A and B opened in 1901-1902 [E1, E2]", evidence: ["E1", "E2"] },
      { id: "F2", text: "x fact [E4]", evidence: ["E4"] },
    ]);
  });

  it("gives a fact rewritten word for word without its ids the old fact's ids (provenance carried)", () => {
    const { facts, carried } = readRewrite(["station b opened in 1902", "A new fact"], old);
    expect(facts[0]).toEqual({ id: "F1", text: "station b opened in 1902 [E2, E3]", evidence: ["E2", "E3"] });
    expect(facts[1]!.evidence).toEqual([]);
    expect(carried).toBe(1);
  });
});

describe("rewriteProblems", () => {
  const rules = { before: old, known, budget: 1000 };

  it("a rewrite with known ids, every fact sourced, within the budget is clean", () => {
    expect(isClean(rewriteProblems(readRewrite(["Station A opened in 1904 [E4]"], old).facts, rules))).toBe(
      true,
    );
  });

  it("names unknown ids, unsourced facts, a memory over its budget and an emptied memory", () => {
    const long = `Station C opened in 1903 and ${"was rebuilt ".repeat(30)}[E4]`;
    const p = rewriteProblems(readRewrite(["A [E9]", "no source here", long], old).facts, {
      ...rules,
      budget: 60,
    });
    expect(p.unknownIds).toEqual(["E9"]);
    expect(p.unsourced).toEqual(["no source here"]);
    expect(p.overBudget).toBeGreaterThan(60);
    expect(describeProblems(p, 60)).toMatch(
      /E9 were never shown.*1 fact\(s\) name no evidence id.*over its budget of 60/,
    );
    expect(rewriteProblems([], rules).emptied).toBe(true);
    expect(rewriteProblems([], { ...rules, before: [] }).emptied).toBe(false);
  });
});

describe("repairRewrite", () => {
  it("removes unknown ids and keeps the leading facts within the budget", () => {
    const facts = readRewrite(
      ["First fact [E1, E9]", "Second fact [E9]", ...Array.from({ length: 20 }, (_, i) => `Fact ${i} [E2]`)],
      old,
    ).facts;
    const budget = 60;
    const repair = repairRewrite(facts, { before: old, known, budget });
    expect(repair.memory[0]).toMatchObject({ text: "First fact [E1]", evidence: ["E1"] });
    expect(repair.memory[1]).toMatchObject({ text: "Second fact", evidence: [] });
    expect(repair.idsRemoved).toBe(2);
    expect(memoryTokens(repair.memory)).toBeLessThanOrEqual(budget);
    expect(repair.factsCut).toBe(facts.length - repair.memory.length);
    expect(repair.factsCut).toBeGreaterThan(0);
  });

  it("an emptied memory keeps the old one", () => {
    expect(repairRewrite([], { before: old, known, budget: 1000 }).memory).toEqual(old);
  });
});
