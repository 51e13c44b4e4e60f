import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { research } from "../../runtime/research-api.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the offline report", () => {
  it("keeps list items as a list, titles sections with the documents' headings, and quotes only whole sentences", async () => {
    const root = mkdtempSync(join(tmpdir(), "dossier-offline-"));
    dirs.push(root);
    mkdirSync(join(root, "notes"));
    writeFileSync(
      join(root, "notes", "plants.md"),
      [
        "# Plant breeding",
        "",
        "## Drought tolerance in maize",
        "",
        "Drought tolerance in maize improved by 12 percent in the breeding trials of 2024. **Breeders selected",
        "lines with deeper roots.** Deeper roots let maize reach water that shallow lines cannot reach in dry years.",
        "",
        "Key drought tolerance results in maize:",
        "",
        "- Drought tolerant maize hybrids yielded 9 percent more grain in dry seasons.",
        "- Maize lines with deeper roots kept leaves green for ten more days under drought.",
        "",
        "## Genetic markers for drought",
        "",
        "Genetic markers linked to drought tolerance let breeders screen maize seedlings early.",
        "markers alone do not explain drought tolerance, which also depends on soil",
      ].join("\n"),
    );
    const result = await research("How did drought tolerance in maize breeding improve?", {
      docs: "notes",
      dossier: { env: { DOSSIER_HOME: join(root, ".dossier") }, cwd: root },
    });
    expect(result.status).toBe("completed");
    const md = result.markdown!;
    // The documents' list items stay list items, each cited.
    expect(md).toMatch(
      /^- Drought tolerant maize hybrids yielded 9 percent more grain in dry seasons \[\d+\]\.$/m,
    );
    // Section titles come from the documents' headings, not bare facet words.
    const headings = [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    for (const h of headings.filter((x) => !/^(Overview|References)$/.test(x)))
      expect(h.split(/\s+/).length).toBeGreaterThan(1);
    // Only whole sentences: nothing starts lower-case mid-sentence, no unpaired bold marker.
    const body = md.slice(0, md.indexOf("## References"));
    expect(body).not.toMatch(/markers alone do not explain/);
    for (const line of body.split("\n").filter((l) => l && !l.startsWith("#") && !l.startsWith(">")))
      expect((line.match(/\*\*/g) ?? []).length % 2).toBe(0);
  });
});
