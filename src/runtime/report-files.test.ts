import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ReportDocument } from "../core/report.ts";
import { checkReportTargets, reportPaths, writeReportFiles } from "./report-files.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "dossier-report-files-"));
  dirs.push(dir);
  return dir;
}

const doc: ReportDocument = {
  runId: "run-1",
  query: "How do heat pumps perform?",
  strategy: "offline",
  title: "Heat pumps",
  createdAt: "2026-01-02T00:00:00.000Z",
  currentDate: "2026-01-02",
  language: "en",
  outline: { sections: [] } as never,
  markdown: "# Heat pumps\n\nThey work in the cold.\n",
  body: "# Heat pumps\n\nThey work in the cold.\n",
  references: [],
  evidenceByNumber: {},
  sources: [],
  evidence: [],
  checks: {} as never,
  usage: {} as never,
  stopReason: "completed",
};

describe("report targets checked up front", () => {
  it("refuses a folder that cannot be made at once, where Node's recursive mkdir would loop (/proc)", () => {
    expect(() => checkReportTargets(["/proc/nope/x/report.md"])).toThrow(
      /cannot write the report to \/proc\/nope\/x\/report\.md: its folder is not writable \(ENOENT\)/,
    );
  });

  it("refuses two formats that would write the same file, naming it", () => {
    const dir = folder();
    const paths = reportPaths({
      out: join(dir, "r"),
      home: dir,
      cwd: dir,
      runId: "x",
      formats: ["md", "md"],
    });
    expect(() => checkReportTargets(paths)).toThrow(/r\.md: two report formats would write the same file/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("writeReportFiles — one set, all or none", () => {
  it("writes every format and replaces an earlier set, leaving nothing else behind", async () => {
    const dir = folder();
    writeFileSync(join(dir, "r.md"), "earlier");
    const paths = [join(dir, "r.md"), join(dir, "r.html"), join(dir, "r.json")];
    expect(await writeReportFiles(doc, ["md", "html", "json"], paths)).toEqual(paths);
    expect(readdirSync(dir).sort()).toEqual(["r.html", "r.json", "r.md"]);
    expect(readFileSync(join(dir, "r.md"), "utf8")).toContain("They work in the cold.");
  });

  it("leaves no partial set when a file of the set cannot be put in place, and puts the earlier file back", async () => {
    const dir = folder();
    // The md file goes in first; the html target turned into a folder after the up-front check.
    mkdirSync(join(dir, "r.html"));
    writeFileSync(join(dir, "r.html", "keep"), "x");
    const paths = [join(dir, "r.md"), join(dir, "r.html")];
    await expect(writeReportFiles(doc, ["md", "html"], paths)).rejects.toThrow();
    expect(readdirSync(dir).sort()).toEqual(["r.html"]);

    writeFileSync(join(dir, "r.md"), "earlier");
    await expect(writeReportFiles(doc, ["md", "html"], paths)).rejects.toThrow();
    expect(readdirSync(dir).sort()).toEqual(["r.html", "r.md"]);
    expect(readFileSync(join(dir, "r.md"), "utf8")).toBe("earlier");
    expect(readdirSync(join(dir, "r.html"))).toEqual(["keep"]);
  });

  it("refuses a duplicate target without writing anything", async () => {
    const dir = folder();
    const paths = [join(dir, "r.md"), join(dir, "r.md")];
    await expect(writeReportFiles(doc, ["md", "md"], paths)).rejects.toThrow(/pair one to one/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
