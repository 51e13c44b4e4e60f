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
