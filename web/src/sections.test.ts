import { describe, expect, it } from "vitest";
import { applyEvent, emptyRunState, type RunEvent } from "./run-state.ts";
import { outlineItems, sectionOfScope, sectionViews } from "./sections.ts";

const outline = {
  sections: [
    { id: "1", title: "Background", plan: "p", children: [] },
    {
      id: "2",
      title: "Findings",
      plan: "p",
      children: [
        { id: "2.1", title: "Costs", plan: "p", content: "Costs fell [E1].", children: [] },
        { id: "2.2", title: "Adoption", plan: "p", children: [] },
      ],
    },
    { id: "3", title: "Outlook", plan: "p", children: [] },
  ],
};

let seq = 0;
const ev = (type: string, fields: Record<string, unknown> = {}): RunEvent => ({
  runId: "r",
  seq: ++seq,
  ts: "t",
  type,
  ...fields,
});

describe("the report, section by section", () => {
  it("flattens an outline in document order with depths and any draft text", () => {
    expect(outlineItems(outline)).toEqual([
      { id: "1", title: "Background", depth: 1 },
      { id: "2", title: "Findings", depth: 1 },
      { id: "2.1", title: "Costs", depth: 2, text: "Costs fell [E1]." },
      { id: "2.2", title: "Adoption", depth: 2 },
      { id: "3", title: "Outlook", depth: 1 },
    ]);
    expect(outlineItems(null)).toEqual([]);
    expect(outlineItems({ sections: [null, { title: "no id" }, "x"] })).toEqual([]);
    expect(sectionOfScope("section:2.1")).toBe("2.1");
    expect(sectionOfScope("search:T-2")).toBeNull();
    expect(sectionOfScope(undefined)).toBeNull();
  });

  it("gives each section its status; a parent follows its sub-sections", () => {
    const items = outlineItems(outline);
    const views = sectionViews(
      items,
      ["2.2"],
      [
        { id: "1", title: "Background", citations: 3, chars: 400 },
        { id: "2.1", title: "Costs", citations: 1, chars: 120 },
        { id: "9", title: "Appendix", citations: 0 },
      ],
    );
    expect(views.map((v) => [v.id, v.status])).toEqual([
      ["1", "written"],
      ["2", "writing"],
      ["2.1", "written"],
      ["2.2", "writing"],
      ["3", "pending"],
      ["9", "written"],
    ]);
    expect(views[0]).toMatchObject({ citations: 3, chars: 400 });
    expect(views[2]!.text).toBe("Costs fell [E1].");
    const all = sectionViews(
      items,
      [],
      [
        { id: "2.1", title: "Costs", citations: 1 },
        { id: "2.2", title: "Adoption", citations: 1 },
      ],
    );
    expect(all.find((v) => v.id === "2")!.status).toBe("written");
    expect(sectionViews([], [], [])).toEqual([]);
  });

  it("folds outline, section scopes and section-written events into the run state", () => {
    seq = 0;
    const s = emptyRunState();
    applyEvent(s, ev("outline-update", { outline, reason: "report outline" }));
    applyEvent(s, ev("llm-start", { role: "writer", scope: "section:1" }));
    applyEvent(s, ev("llm-start", { role: "writer", scope: "section:2.1" }));
    applyEvent(s, ev("llm-end", { role: "writer", scope: "section:1" }));
    expect(s.outline.map((o) => o.id)).toEqual(["1", "2", "2.1", "2.2", "3"]);
    expect(s.writing).toEqual(["1", "2.1"]);
    applyEvent(
      s,
      ev("section-written", {
        sectionId: "1",
        title: "Background",
        chars: 50,
        citations: 2,
        scope: "section:1",
      }),
    );
    expect(s.writing).toEqual(["2.1"]);
    expect(s.sections).toEqual([{ id: "1", title: "Background", citations: 2, chars: 50 }]);
    // An event of a written section (a replay after resume) does not mark it as being written.
    applyEvent(s, ev("llm-end", { role: "writer", scope: "section:1", replayed: true }));
    expect(s.writing).toEqual(["2.1"]);
    // A draft's outline carries the sections' text.
    applyEvent(s, ev("draft-snapshot", { index: 0, step: 1, expansions: 0, markdown: "", outline }));
    expect(s.outline.find((o) => o.id === "2.1")!.text).toBe("Costs fell [E1].");
    applyEvent(s, ev("run-end", { status: "completed", stopReason: "completed" }));
    expect(s.writing).toEqual([]);
  });
});
