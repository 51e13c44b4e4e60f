/**
 * minddr never ends without a report because one role failed: each role that always fails
 * takes its documented fallback (a warning with its code), and in the closed-world chaos
 * check — half of all JSON answers cut short — the run still ends with a valid, fully cited
 * report.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { Reply } from "../../../test/fake-openai/types.ts";
import type { CallExpectations } from "../../../test/research/call-expectations.ts";
import type { ScriptRole } from "../../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { ReportDocument } from "../../core/report.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
const NOT_JSON: Reply = { kind: "text", text: "I would rather write prose than JSON." };
const REFUSED: Reply = {
  kind: "error",
  status: 400,
  body: { error: { message: "the request was refused", type: "invalid_request_error" } },
};
/** Calls of a healthy minddr run with three agents that each read one page and finish with it. */
const HEALTHY: CallExpectations<ScriptRole> = {
  planner: 1,
  "search-step": 3,
  reader: 3,
  "sub-report": 3,
  outline: 1,
  section: 4,
  coherence: 1,
};

/** The report's invariants: every citation resolves, every reference is cited, nothing dropped. */
function expectValidReport(report: ReportDocument) {
  const numbers = citedNumbers(report.body);
  expect(numbers.length).toBeGreaterThan(0);
  expect(new Set(numbers)).toEqual(new Set(report.references.map((r) => r.number)));
  expect(report.checks.citations.dropped).toBe(0);
  expect(report.checks.headings.problems).toBe(0);
  const ids = new Set(report.evidence.map((e) => e.id));
  for (const cited of Object.values(report.evidenceByNumber).flat()) expect(ids.has(cited)).toBe(true);
}

describe("minddr fallbacks", () => {
  it.each<[ScriptRole, Reply, CallExpectations<ScriptRole>, string, number]>([
    // Planner: 1 + 2 repairs, then the question is one subtask.
    [
      "planner",
      NOT_JSON,
      { ...HEALTHY, planner: 3, "search-step": 1, reader: 1, "sub-report": 1 },
      "PLAN_FALLBACK",
      1,
    ],
    // Search step: each agent stops after its first step's three tries and reports its seed evidence.
    ["search-step", NOT_JSON, { ...HEALTHY, "search-step": 9, reader: 0 }, "SEARCH_STEP_FALLBACK", 3],
    // Reader: the page stays unread (three tries each); the failed last read gives each agent
    // another step, which finishes.
    ["reader", NOT_JSON, { ...HEALTHY, "search-step": 6, reader: 9 }, "READER_FALLBACK", 3],
    ["sub-report", REFUSED, HEALTHY, "SUB_REPORT_FALLBACK", 3],
    // Outline: the report is made of the sub-reports; no section or coherence call.
    ["outline", NOT_JSON, { ...HEALTHY, outline: 3, section: 0, coherence: 0 }, "OUTLINE_FALLBACK", 1],
    ["section", REFUSED, HEALTHY, "SECTION_FALLBACK", 4],
    ["coherence", NOT_JSON, { ...HEALTHY, coherence: 3 }, "COHERENCE_SKIPPED", 1],
  ])(
    "when the %s always fails, takes its fallback and still writes a cited report",
    async (failing, reply, expectCalls, code, warnings) => {
      world = await startResearchWorld({
        subtasks: 3,
        expectCalls,
        override: (role) => (role === failing ? reply : undefined),
      });
      const result = await world.research({ query, strategy: "minddr" });
      expect(result.record.status).toBe("completed");
      expect(result.outcome!.paths).toHaveLength(1);
      const codes = result.events.flatMap((e) => (e.type === "warning" ? [e.code] : []));
      expect(codes.filter((c) => c === code)).toHaveLength(warnings);
      expectValidReport(result.outcome!.report);
    },
  );
});

describe("minddr in a chaotic closed world", () => {
  it.each([1, 2, 3, 4, 5, 6])(
    "finishes with a valid, fully cited report when half the JSON answers are cut short (seed %i)",
    async (seed) => {
      world = await startResearchWorld({
        subtasks: 5,
        truncateJson: { share: 0.5, seed },
        // Every structured role may need its repairs; prose roles are called once per need.
        expectCalls: {
          planner: [1, 3],
          "search-step": [5, 30],
          reader: [0, 15],
          "sub-report": [1, 5],
          outline: [1, 3],
          section: [0, 4],
          coherence: [0, 3],
        },
      });
      const result = await world.research({ query, strategy: "minddr" });
      expect(result.record.status).toBe("completed");
      const formatErrors = result.events.filter((e) => e.type === "format-error");
      expect(formatErrors.length).toBeGreaterThan(0);
      const report = result.outcome!.report;
      expectValidReport(report);
      // Every section of findings cites its sources.
      const sections = report.body.split(/\n(?=## )/).slice(1);
      expect(sections.length).toBeGreaterThan(0);
      for (const section of sections.filter((s) => !s.startsWith("## Conclusion")))
        expect(section).toMatch(/\[\d+(, \d+)*\]/);
    },
  );
});
