import { describe, expect, it } from "vitest";
import { instantClock } from "../../test/scripted/clocks.ts";
import { BudgetLedger } from "../core/budget.ts";
import { EvidenceRegistry } from "../core/evidence-registry.ts";
import { hasContent, requireResearch } from "./research-done.ts";

function run(toolCalls: number, evidence: number) {
  const budget = new BudgetLedger({ limits: {}, clock: instantClock() });
  for (let i = 0; i < toolCalls; i++) budget.reserveToolCall();
  const registry = new EvidenceRegistry();
  const source = registry.addSource({
    kind: "web",
    url: "https://a.example/",
    title: "A",
    fetchedAt: "2026-01-01T00:00:00Z",
  });
  for (let i = 0; i < evidence; i++)
    registry.addEvidence({
      sourceId: source.source.id,
      text: `fact ${i}`,
      retrievedBy: { tool: "web_search", callId: "c" },
    });
  return { budget, evidence: registry };
}

describe("requireResearch", () => {
  it("a report of headings only has no content; one line of text has", () => {
    expect(hasContent("# Title\n\n## One\n\n## Two\n\nSetext\n------\n")).toBe(false);
    expect(hasContent("# Title\n\n## One\n\nA sentence.\n")).toBe(true);
  });

  it("passes a run with a tool call or evidence and a report with text", () => {
    expect(() => requireResearch(run(1, 0), { stopReason: "completed", body: "# T\n\nText." })).not.toThrow();
    expect(() => requireResearch(run(0, 1), { stopReason: "completed" })).not.toThrow();
  });

  it("fails a run with no tool call and no evidence with NO_RESEARCH, or BUDGET_EXCEEDED at a budget stop", () => {
    expect(() => requireResearch(run(0, 0), { stopReason: "completed", why: "finished at once" })).toThrow(
      expect.objectContaining({ code: "NO_RESEARCH", message: expect.stringMatching(/finished at once/) }),
    );
    expect(() => requireResearch(run(0, 0), { stopReason: "budget:tokens" })).toThrow(
      expect.objectContaining({
        code: "BUDGET_EXCEEDED",
        details: expect.objectContaining({ limit: "tokens" }),
      }),
    );
  });

  it("passes a run whose every tool call failed: it tried, and gathered nothing to write", () => {
    expect(() =>
      requireResearch(run(3, 0), { stopReason: "completed", body: "# T\n\n## A\n" }),
    ).not.toThrow();
  });

  it("fails a run that gathered evidence and whose report is only headings with NO_RESEARCH", () => {
    expect(() =>
      requireResearch(run(2, 2), { stopReason: "completed", body: "# T\n\n## A\n\n## B\n" }),
    ).toThrow(
      expect.objectContaining({
        code: "NO_RESEARCH",
        message: expect.stringMatching(/no report was written/),
      }),
    );
  });
});
