import { afterEach, describe, expect, it } from "vitest";
import type { CallExpectations } from "../../test/research/call-expectations.ts";
import type { ScriptRole } from "../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The calls of a minddr run with three agents that each read one page (and finish with it). */
const calls: CallExpectations<ScriptRole> = {
  planner: 1,
  "search-step": 3,
  reader: 3,
  "sub-report": 3,
  outline: 1,
  section: 4,
  coherence: 1,
};

describe("language: auto", () => {
  it.each([
    ["fr", "French", "Quels sont les effets du télétravail sur la productivité des entreprises ?"],
    ["de", "German", "Welche Auswirkungen hat die Energiewende auf die deutsche Industrie?"],
    ["es", "Spanish", "¿Cuál es el impacto de la inteligencia artificial en el empleo en España?"],
    ["ru", "Russian", "Каковы последствия санкций для российской экономики?"],
  ])(
    "writes a report in the question's language (%s) and tells every writer so",
    async (code, name, query) => {
      world = await startResearchWorld({ subtasks: 3, expectCalls: calls });
      const result = await world.research({ query, strategy: "minddr", language: "auto" });
      expect(result.record.status).toBe("completed");
      expect(result.outcome!.report.language).toBe(code);
      for (const role of ["outline", "section"] as const) {
        expect(world.script.systems[role].length).toBeGreaterThan(0);
        for (const system of world.script.systems[role])
          expect(system).toContain(`Write everything in ${name}.`);
      }
    },
  );

  it("keeps English for an English question", async () => {
    world = await startResearchWorld({ subtasks: 3, expectCalls: calls });
    const result = await world.research({ query: "How is topic adoption changing?", strategy: "minddr" });
    expect(result.outcome!.report.language).toBe("en");
    for (const system of world.script.systems.section)
      expect(system).toContain("Write everything in English.");
  });
});
