/**
 * The mams strategy in the closed research world over a local knowledge base: with
 * `--sources local-only` the search agent sees only `local_search`, no web request is made, and
 * the report cites the documents by file and heading.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("mams in the research world", () => {
  it("--sources local-only researches the documents only and cites them by file and heading", async () => {
    world = await startResearchWorld({
      expectCalls: { "mams-search": 2, "mams-state": 1, "mams-report": 1 },
    });
    const docs = join(world.home, "docs");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "batteries.md"),
      "# Battery notes\n\n## Prices\n\nBattery pack prices fell to 115 dollars per kilowatt hour in 2024 according to the annual survey.\n",
    );
    writeFileSync(
      join(docs, "grid.md"),
      "# Grid\n\n## Storage\n\nGrid storage installations doubled in 2024 as battery prices fell.\n",
    );
    const result = await world.research({
      query: "How did battery prices change and what followed?",
      strategy: "mams",
      sources: "local-only",
      docs,
    });
    expect(result.record.status).toBe("completed");
    expect(world.search.requests).toHaveLength(0);
    expect(world.web.requests).toHaveLength(0);
    const tools = new Set(result.events.flatMap((e) => (e.type === "tool-start" ? [e.tool] : [])));
    expect([...tools]).toEqual(["local_search"]);
    expect(world.script.systems["mams-search"][0]).not.toContain("web_search");
    const report = result.outcome!.report;
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(0);
    expect(Math.max(...numbers)).toBe(report.references.length);
    for (const ref of report.references) {
      expect(ref.kind).toBe("local");
      expect(ref.locator).toMatch(/^(batteries|grid)\.md#[a-z-]+$/);
    }
  });
});
