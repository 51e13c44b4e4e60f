import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function writeDocs(root: string): string {
  const docs = join(root, "docs");
  mkdirSync(docs, { recursive: true });
  writeFileSync(
    join(docs, "batteries.md"),
    [
      "# Battery notes",
      "",
      "## Costs",
      "",
      "Battery pack prices fell to 115 dollars per kilowatt hour in 2024 according to the annual survey.",
      "Lower pack prices made electric buses cheaper to run than diesel buses in several cities.",
      "",
      "## Supply",
      "",
      "Lithium supply grew faster than demand in 2024, which pushed lithium prices down sharply.",
      "Sodium-ion batteries entered mass production as an alternative chemistry for cheaper vehicles.",
    ].join("\n"),
  );
  writeFileSync(
    join(docs, "grid.md"),
    [
      "# Grid storage",
      "",
      "Grid-scale battery storage installations doubled in 2024 as battery prices fell.",
      "Storage operators earn revenue from frequency regulation and from shifting solar power to the evening.",
    ].join("\n"),
  );
  return docs;
}

describe("research over local documents", () => {
  it("a local-only minddr run makes no request to the web servers and cites local anchors", async () => {
    world = await startResearchWorld({ subtasks: 3 });
    const docs = writeDocs(world.home);
    const result = await world.research({
      query: "How did battery prices change and what followed?",
      strategy: "minddr",
      sources: "local-only",
      docs,
    });
    expect(result.record.status).toBe("completed");
    expect(world.search.requests).toHaveLength(0);
    expect(world.web.requests).toHaveLength(0);
    expect(world.script.counts.reader).toBe(0);
    const report = result.outcome!.report;
    expect(report.references.length).toBeGreaterThan(0);
    for (const ref of report.references) {
      expect(ref.kind).toBe("local");
      expect(ref.locator).toMatch(/^(batteries|grid)\.md#[a-z-]+$/);
    }
    expect(result.events.some((e) => e.type === "tool-end" && e.tool === "web_search")).toBe(false);
  });

  it("the offline strategy needs no model and writes a cited extractive report", async () => {
    world = await startResearchWorld({ config: { model: undefined } });
    const docs = writeDocs(world.home);
    const result = await world.research({
      query: "battery prices and storage",
      docs,
      formats: ["md", "html"],
    });
    expect(result.prepared.strategy).toBe("offline");
    expect(result.prepared.notices[0]).toContain("offline");
    expect(result.record.status).toBe("completed");
    expect(world.model.requests).toHaveLength(0);
    expect(world.search.requests).toHaveLength(0);
    const report = result.outcome!.report;
    expect(report.notice).toContain("Offline mode");
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(2);
    expect(Math.max(...numbers)).toBe(report.references.length);
    // Every cited sentence is quoted verbatim from its document.
    for (const e of report.evidence) {
      const file = readFileSync(join(docs, report.sources.find((s) => s.id === e.sourceId)!.path!), "utf8");
      expect(file.replace(/\s+/g, " ")).toContain(e.text);
    }
    expect(report.checks.groundedShare).toBe(1);
    const html = readFileSync(result.outcome!.paths[1]!, "utf8");
    expect(html).toContain('<a class="cite" href="#ref-1"');
    expect(html).toContain('id="ref-1"');
  });

  it("without a model or documents, research says exactly what to configure", async () => {
    world = await startResearchWorld({ config: { model: undefined } });
    await expect(world.research({ query: "anything at all" })).rejects.toMatchObject({
      code: "MODEL_NOT_CONFIGURED",
      message: expect.stringContaining("DOSSIER_MODEL"),
    });
  });
});
