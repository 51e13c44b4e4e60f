import { describe, expect, it } from "vitest";
import { createMemoryJournal, recallState, StepKeyer } from "./journal.ts";

describe("step journal", () => {
  it("keys identical requests apart by their count and the same way in a rerun", () => {
    const keys = (k: StepKeyer) => [k.next("llm", "h1"), k.next("llm", "h2"), k.next("llm", "h1")];
    expect(keys(new StepKeyer())).toEqual(["llm:h1#1", "llm:h2#1", "llm:h1#2"]);
    expect(keys(new StepKeyer())).toEqual(keys(new StepKeyer()));
  });

  it("recallState computes a step's state once and gives a later attempt the stored value", () => {
    const journal = createMemoryJournal();
    expect(recallState(journal, "xot:search:T-1#2", () => "memory as it was")).toBe("memory as it was");
    expect(journal.get("state:xot:search:T-1#2")).toEqual({ kind: "state", value: "memory as it was" });
    let computed = false;
    const again = recallState(journal, "xot:search:T-1#2", () => {
      computed = true;
      return "memory filled in another order";
    });
    expect(again).toBe("memory as it was");
    expect(computed).toBe(false);
    // Another step, and an entry of another kind under the same key, are computed afresh.
    expect(recallState(journal, "xot:search:T-1#3", () => "later")).toBe("later");
    journal.put("state:odd", { kind: "llm", value: "not state" });
    expect(recallState(journal, "odd", () => "fresh")).toBe("fresh");
  });
});

describe("step journal details", () => {
  it("keeps one entry per key in memory, a later put replacing an earlier one", () => {
    const journal = createMemoryJournal();
    expect(journal.size()).toBe(0);
    expect(journal.get("llm:a#1")).toBeUndefined();
    journal.put("llm:a#1", { kind: "llm", value: 1 });
    journal.put("tool:a#1", { kind: "tool", value: 2 });
    journal.put("llm:a#1", { kind: "llm", value: 3 });
    expect(journal.size()).toBe(2);
    expect(journal.get("llm:a#1")).toEqual({ kind: "llm", value: 3 });
  });

  it("counts each kind and hash on its own", () => {
    const keyer = new StepKeyer();
    expect([
      keyer.next("llm", "h"),
      keyer.next("tool", "h"),
      keyer.next("llm", "h"),
      keyer.next("tool", "h"),
    ]).toEqual(["llm:h#1", "tool:h#1", "llm:h#2", "tool:h#2"]);
  });

  it("stores a computed state under state:<name>, falsy values included", () => {
    const journal = createMemoryJournal();
    expect(recallState(journal, "n", () => 0)).toBe(0);
    expect(journal.get("state:n")).toEqual({ kind: "state", value: 0 });
    expect(recallState(journal, "n", () => 5)).toBe(0);
    expect(journal.size()).toBe(1);
  });
});
