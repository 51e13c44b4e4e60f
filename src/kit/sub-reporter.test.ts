import { describe, expect, it } from "vitest";
import type { Evidence, Source } from "../core/source.ts";
import type { RunContext } from "./run-context.ts";
import { writeSubReport } from "./sub-reporter.ts";

const source = (id: string): Source => ({ id, title: `Page ${id}` }) as unknown as Source;
const ev = (id: string, sourceId: string, text: string): Evidence => ({
  id,
  sourceId,
  text,
  retrievedBy: { tool: "web_search", callId: "T1" },
});

function context(prompts: string[]): RunContext {
  return {
    generate: async (request: { prompt: string }) => {
      prompts.push(request.prompt);
      return { text: " The subtask found figures [E2]. " };
    },
    evidence: { getSource: (id: string) => source(id) },
    emit: () => {},
  } as unknown as RunContext;
}

describe("writeSubReport", () => {
  it("shows an excerpt once: a snippet whose sentences the page's read excerpts repeat is left out", async () => {
    const prompts: string[] = [];
    const summary = await writeSubReport(context(prompts), {
      subtask: { title: "Battery costs", goal: "battery cost figures" },
      evidence: [
        // A search snippet, cut mid-word, of the page read below.
        ev(
          "E1",
          "S1",
          "Battery costs fell 12 percent in 2025. Analysts expect battery costs to keep falling b",
        ),
        ev("E2", "S1", "Battery costs fell 12 percent in 2025."),
        ev("E3", "S1", "Analysts expect battery costs to keep falling by 2030."),
        // Another source saying the same sentence is kept: repeats count within a source only.
        ev("E4", "S2", "Battery costs fell 12 percent in 2025."),
      ],
      language: "English",
      failures: [],
    });
    expect(summary).toBe("The subtask found figures [E2].");
    expect(prompts).toHaveLength(1);
    const shown = [...prompts[0]!.matchAll(/^\[(E\d+)\]/gm)].map((m) => m[1]);
    expect(shown.sort()).toEqual(["E2", "E3", "E4"]);
  });

  it("writes no model call without evidence, naming the failed searches", async () => {
    const prompts: string[] = [];
    const summary = await writeSubReport(context(prompts), {
      subtask: { title: "Battery costs", goal: "battery cost figures" },
      evidence: [],
      language: "English",
      failures: ["web_search: TIMEOUT"],
    });
    expect(prompts).toHaveLength(0);
    expect(summary).toBe(
      'No evidence could be gathered for "Battery costs". Every search failed: web_search: TIMEOUT.',
    );
  });
});
