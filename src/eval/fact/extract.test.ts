import { describe, expect, it } from "vitest";
import { benchmarkPath, haveBenchmarkFile } from "../../../test/benchmarks.ts";
import { renderReferences } from "../../core/citations.ts";
import { readJsonl } from "../race/jsonl.ts";
import { cleanStatement, extractCitations, markerNumbers } from "./extract.ts";
import { factReportSchema } from "./records.ts";
import { parseReferenceEntry, splitReferences } from "./references.ts";

describe("parseReferenceEntry", () => {
  it("reads the common entry forms", () => {
    expect(parseReferenceEntry("[1] https://a.example/x - Title A")).toEqual({
      number: 1,
      url: "https://a.example/x",
      title: "Title A",
    });
    expect(parseReferenceEntry("2. Title B. <https://b.example/y> (accessed 2026-11-22)")).toEqual({
      number: 2,
      url: "https://b.example/y",
      title: "Title B.",
    });
    expect(parseReferenceEntry("- 3) [Title C](https://c.example/z)")).toEqual({
      number: 3,
      url: "https://c.example/z",
      title: "Title C",
    });
    expect(parseReferenceEntry('[4]: https://d.example/w "Title D"')).toEqual({
      number: 4,
      url: "https://d.example/w",
      title: '"Title D"',
    });
    expect(parseReferenceEntry("[^5]: Smith, Paper, https://e.example/v.")).toEqual({
      number: 5,
      url: "https://e.example/v",
      title: "Smith, Paper",
    });
    expect(
      parseReferenceEntry("6. Local notes. `notes/a.pdf#page=3` (local document, accessed 2026-11-22)"),
    ).toEqual({
      number: 6,
      title: "Local notes. `notes/a.pdf#page=3`",
    });
    expect(parseReferenceEntry("Plain text")).toBeNull();
  });
});

describe("splitReferences", () => {
  it("takes the list after the last references heading and link definitions anywhere", () => {
    const { body, references } = splitReferences(
      "Intro [1].\n[3]: https://c.example\n\n## Sources\n\n[1] https://a.example - A\n[2] https://b.example - B\n",
    );
    expect(body).toBe("Intro [1].\n");
    expect([...references.keys()]).toEqual([1, 2, 3]);
  });
  it("without a heading takes the trailing run of entries that carry URLs", () => {
    const { body, references } = splitReferences("Text [1].\n\n1. Point one\n\n[1] https://a.example - A\n");
    expect(body).toBe("Text [1].\n\n1. Point one\n");
    expect(references.get(1)?.url).toBe("https://a.example");
  });
  it("reads Dossier's own References section", () => {
    const refs = renderReferences([
      {
        number: 1,
        sourceId: "S1",
        title: "Rice report",
        locator: "https://rice.example/r",
        kind: "web",
        accessed: "2026-11-22",
      },
      {
        number: 2,
        sourceId: "S2",
        title: "Notes",
        locator: "notes/a.pdf#page=3",
        kind: "local",
        accessed: "2026-11-22",
      },
    ]);
    const { references } = splitReferences(`Prices rose [1]. Stocks fell [2].\n\n${refs}`);
    expect(references.get(1)).toEqual({ number: 1, url: "https://rice.example/r", title: "Rice report." });
    expect(references.get(2)?.url).toBeUndefined();
  });
  it("starts the list at a bold title line, not at a title inside code", () => {
    const { body, references } = splitReferences(
      "Intro [1].\n\n**Sources:**\n[1] https://a.example - A\n\n```\n## References\n[2] https://b.example - B\n```\n",
    );
    expect(body).toBe("Intro [1].\n");
    expect([...references.keys()]).toEqual([1, 2]);
  });
});

describe("extractCitations blocks", () => {
  it("skips ~~~ and unclosed fences, a fence closing only with its own marker", () => {
    const md = [
      "Market size",
      "-----------",
      "",
      "Prices rose [1].",
      "",
      "~~~",
      "Not a claim [2].",
      "```",
      "~~~",
      "",
      "Stocks fell [2].",
      "",
      "```",
      "Never closed [2].",
      "",
      "## References",
      "[1] https://a.example - A",
      "[2] https://b.example - B",
    ].join("\n");
    const { triples } = extractCitations(md);
    expect(triples).toEqual([
      { fact: "Prices rose.", ref_idx: 1, url: "https://a.example" },
      { fact: "Stocks fell.", ref_idx: 2, url: "https://b.example" },
    ]);
  });
});

describe("markerNumbers", () => {
  it("expands lists and ranges", () => {
    expect(markerNumbers("1, 2")).toEqual([1, 2]);
    expect(markerNumbers("3-5")).toEqual([3, 4, 5]);
    expect(markerNumbers("7，8")).toEqual([7, 8]);
  });
});

describe("extractCitations", () => {
  const report = [
    "# Rice in 2024",
    "",
    "Prices rose 12% after the drought [1]. Stocks fell to a decade low.[2][3] Imports, however, grew [2, 4].",
    "",
    "- **Exports** were banned in May [^5].",
    "",
    "| Year | Price |",
    "|---|---|",
    "| 2024 | 530 USD [1] |",
    "",
    "See the [FAO outlook](https://fao.example/outlook) for more. Unknown claim [9].",
    "",
    "```",
    "[1] inside code is ignored",
    "```",
    "",
    "## References",
    "",
    "[1] https://a.example - A",
    "[2] https://b.example - B",
    "[3] https://c.example - C",
    "[4] https://d.example - D",
    "[5] https://e.example - E",
  ].join("\n");

  it("pairs each cited sentence with every URL it cites", () => {
    const { triples, unresolved, references } = extractCitations(report);
    expect(references).toBe(5);
    expect(unresolved).toEqual([9]);
    expect(triples).toEqual([
      { fact: "Prices rose 12% after the drought.", ref_idx: 1, url: "https://a.example" },
      { fact: "Stocks fell to a decade low.", ref_idx: 2, url: "https://b.example" },
      { fact: "Stocks fell to a decade low.", ref_idx: 3, url: "https://c.example" },
      { fact: "Imports, however, grew.", ref_idx: 2, url: "https://b.example" },
      { fact: "Imports, however, grew.", ref_idx: 4, url: "https://d.example" },
      { fact: "Exports were banned in May.", ref_idx: 5, url: "https://e.example" },
      { fact: "2024 | 530 USD", ref_idx: 1, url: "https://a.example" },
      { fact: "See the FAO outlook for more.", ref_idx: 0, url: "https://fao.example/outlook" },
    ]);
  });

  it("attaches markers after a Chinese full stop to that sentence", () => {
    const { triples } = extractCitations(
      "中产占比约7%。 [9][10] 房价很高[3]。\n\n参考文献：\n[3] https://c.example - C\n[9] https://i.example - I\n[10] https://j.example - J",
    );
    expect(triples.map((t) => [t.fact, t.ref_idx])).toEqual([
      ["中产占比约7%。", 9],
      ["中产占比约7%。", 10],
      ["房价很高。", 3],
    ]);
  });

  it("finds nothing in a report without citations", () => {
    expect(extractCitations("# Plain\n\nNo sources here.")).toEqual({
      triples: [],
      unresolved: [],
      references: 0,
    });
  });

  it("cleans statements", () => {
    expect(cleanStatement("  1. **Bold** claim [1] , with `code` [2].")).toBe("Bold claim, with code.");
  });

  const RAW = benchmarkPath("deepresearch_bench/data/test_data/raw_data/claude-3-7-sonnet-latest.jsonl");
  const HAVE_RAW = haveBenchmarkFile(RAW, "resolving the citations of the benchmark's example reports");
  it.skipIf(!HAVE_RAW)("resolves every citation of the benchmark's example reports", () => {
    const reports = readJsonl(RAW, factReportSchema);
    const extractions = reports.map((r) => extractCitations(r.article));
    expect(extractions.filter((e) => e.triples.length === 0)).toHaveLength(0);
    expect(extractions.reduce((n, e) => n + e.unresolved.length, 0)).toBe(0);
    expect(extractions[0]!.references).toBe(16);
    expect(extractions[0]!.triples[0]).toEqual({
      fact: "中国社会阶层的划分模型将社会人群分为9个阶层，可以大致归为三大类：1-3级是统治阶层，为社会最大的既得利益者；4-6级属于中产阶级；7-9级是中国社会的底层，其中9级被视为社会最悲惨的阶层。",
      ref_idx: 1,
      url: "https://www.epochtimes.com/gb/14/8/27/n4234092.htm",
    });
  });
});
