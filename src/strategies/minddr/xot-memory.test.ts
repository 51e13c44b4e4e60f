import { describe, expect, it } from "vitest";
import { type XotEntry, XotMemory } from "./xot-memory.ts";

describe("XotMemory", () => {
  it("records every entry through onAppend and ignores blank ones", () => {
    const seen: XotEntry[] = [];
    const xot = new XotMemory({ onAppend: (e) => seen.push(e) });
    xot.append({ agent: "planner", kind: "rationale", text: "  cover costs and supply  " });
    xot.append({ agent: "search:T-1", kind: "thought", text: "   " });
    expect(seen).toEqual([{ agent: "planner", kind: "rationale", text: "cover costs and supply" }]);
    expect(xot.entries()).toHaveLength(1);
    expect(Object.isFrozen(xot.entries()[0])).toBe(true);
  });

  it("shows an agent the planner's rationale and the others' findings, not its own or their thoughts", () => {
    const xot = new XotMemory();
    xot.append({ agent: "planner", kind: "rationale", text: "Split into costs and supply." });
    xot.append({ agent: "search:T-1", kind: "thought", text: "T-1 private thought" });
    xot.append({ agent: "search:T-1", kind: "finding", text: "Costs fell by half [E1]." });
    xot.append({ agent: "search:T-2", kind: "finding", text: "Supply grew [E7]." });
    const forT2 = xot.renderFor("search:T-2");
    expect(forT2).toContain("Split into costs and supply.");
    expect(forT2).toContain("[search:T-1 · finding] Costs fell by half [E1].");
    expect(forT2).not.toContain("private thought");
    expect(forT2).not.toContain("Supply grew");
    expect(new XotMemory().renderFor("search:T-1")).toBe("");
  });

  it("keeps the rationale and the newest findings when space runs out", () => {
    const xot = new XotMemory();
    xot.append({ agent: "planner", kind: "rationale", text: "The plan." });
    for (let i = 1; i <= 20; i++)
      xot.append({ agent: `search:T-${i}`, kind: "finding", text: `Fact ${i} ${"x".repeat(80)}` });
    const view = xot.renderFor("search:T-0", 500);
    expect(view.length).toBeLessThanOrEqual(500);
    expect(view).toContain("The plan.");
    expect(view).toContain("Fact 20");
    expect(view).not.toContain("Fact 1 ");
    // Shown in the order written.
    expect(view.indexOf("The plan.")).toBeLessThan(view.indexOf("Fact 20"));
  });

  it("renders the whole trace for the report agent with thoughts last in priority", () => {
    const xot = new XotMemory();
    xot.append({ agent: "search:T-1", kind: "thought", text: "t".repeat(300) });
    xot.append({ agent: "search:T-1", kind: "sub-report", text: "The sub-report." });
    const text = xot.render(100);
    expect(text).toContain("The sub-report.");
    expect(text).not.toContain("ttt");
  });

  it("renders the same trace for the report agent however the agents' entries interleaved", () => {
    const entries: XotEntry[] = [
      { agent: "planner", kind: "rationale", text: "The plan." },
      { agent: "search:T-2", kind: "finding", text: "T-2 first [E1]." },
      { agent: "search:T-10", kind: "finding", text: "T-10 first [E2]." },
      { agent: "search:T-2", kind: "sub-report", text: "T-2 report." },
      { agent: "search:T-1", kind: "finding", text: "T-1 first [E3]." },
      { agent: "search:T-1", kind: "sub-report", text: "T-1 report." },
    ];
    const written = (order: number[]) => {
      const xot = new XotMemory();
      for (const i of order) xot.append(entries[i]!);
      return xot.render();
    };
    const text = written([0, 1, 2, 3, 4, 5]);
    // Another interleaving that keeps each agent's own order.
    expect(written([0, 4, 2, 5, 1, 3])).toBe(text);
    expect(text.split("\n").map((l) => l.slice(0, l.indexOf("]") + 1))).toEqual([
      "[planner · rationale]",
      "[search:T-1 · finding]",
      "[search:T-1 · sub-report]",
      "[search:T-2 · finding]",
      "[search:T-2 · sub-report]",
      "[search:T-10 · finding]",
    ]);
  });
});
