/**
 * The report writer's frame (title, introduction, conclusion), with the scripted model and no
 * timing: written alongside the sections, the editor's call is issued before any section
 * writer's call returns (the writers' answers are held until it arrives, see
 * test/research/overlap-gate.ts) and reads what each writer was given, not their text; its
 * citations are kept to what the writers were given. Written after them (the default), the
 * editor reads the written draft.
 */

import { afterEach, describe, expect, it } from "vitest";
import { type KitContext, type KitContextOptions, startKitContext } from "../../test/research/kit-context.ts";
import { heldUntil, holdAll } from "../../test/research/overlap-gate.ts";
import { json, userText } from "../../test/research/replies.ts";
import type { EvidenceRegistry } from "../core/evidence-registry.ts";
import { createOutline } from "../core/outline.ts";
import type { PlannedOutline } from "./outliner.ts";
import { type WriteReportOptions, writeReport } from "./report-writer.ts";

let kit: KitContext | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const SECTION = "writing one section of a long research report";
const EDITOR = "editor of a research report";
const by = { tool: "fetch", callId: "c1" };

const TOPICS = [
  {
    title: "Battery costs",
    plan: "How battery pack costs fell per kilowatt hour",
    words: "battery pack costs",
  },
  {
    title: "Charging networks",
    plan: "How public charging networks grew along highways",
    words: "charging networks",
  },
  {
    title: "Grid strain",
    plan: "How grid operators handle evening demand from charging",
    words: "grid operators demand",
  },
];

/** Two passages per topic (E1–E6), then one about nothing any section names (E7). */
function fill(evidence: EvidenceRegistry): void {
  TOPICS.forEach((t, i) => {
    const s = evidence.addSource({
      kind: "web",
      url: `https://site${i + 1}.example/report`,
      title: `${t.title} review`,
      fetchedAt: "2026-02-20T08:00:00Z",
    }).source;
    evidence.addEvidence({
      sourceId: s.id,
      text: `The ${t.words} figures changed by ${10 + i} percent in 2025.`,
      retrievedBy: by,
    });
    evidence.addEvidence({
      sourceId: s.id,
      text: `Analysts of ${t.words} expect steady change through 2027.`,
      retrievedBy: by,
    });
  });
  const far = evidence.addSource({
    kind: "web",
    url: "https://zoo.example/zebras",
    title: "Zebras",
    fetchedAt: "2026-02-20T08:00:00Z",
  }).source;
  evidence.addEvidence({
    sourceId: far.id,
    text: "Zebra herds migrate across the Serengeti plains.",
    retrievedBy: by,
  });
}

const planned = (): PlannedOutline => ({
  title: "Electric vehicles in 2025",
  outline: createOutline(TOPICS.map(({ title, plan }) => ({ title, plan }))),
  evidenceHints: { "1": ["E1", "E2"], "2": ["E3", "E4"], "3": ["E5", "E6"] },
});

async function write(options: KitContextOptions, frame?: WriteReportOptions["frame"]) {
  kit = await startKitContext(options);
  fill(kit.evidence);
  const report = await writeReport(kit.ctx, {
    title: "Electric vehicles",
    language: "en",
    trace: "",
    evidence: kit.evidence.evidence(),
    fallbackSections: [],
    stopReason: "done",
    guidance: "Quality criteria for this report (persistent rubric):\nRUBRIC-MARK",
    outline: planned(),
    findings: [
      { label: "T-5 search", text: "FINDING-COSTS battery pack costs fell [E1].", sections: ["1"] },
      { label: "T-6 search", text: "FINDING-GRID grid operators shifted demand [E5].", sections: ["3"] },
    ],
    ...(frame ? { frame } : {}),
  });
  return { kit, report };
}

const llmStarts = (k: KitContext, scope: (s: string) => boolean) =>
  k.events.filter((e) => e.type === "llm-start" && scope(e.scope ?? ""));
const endOf = (k: KitContext, callId: string) =>
  k.events.find((e) => e.type === "llm-end" && e.callId === callId)!.seq;

describe("the report's frame written alongside the sections", () => {
  it("issues the editor's call before any section writer's call returns, and frames from the writers' briefs", async () => {
    // Every section writer's answer waits until the editor's call has arrived.
    const gate = heldUntil(
      (r) => r.system.includes(SECTION),
      (r) => r.system.includes(EDITOR),
      1,
      5_000,
    );
    // One writer at a time: the editor's call is not queued behind the writers.
    const { kit, report } = await write(
      { hold: holdAll(gate), concurrency: 1, expectCalls: { section: 3, coherence: 1 } },
      "alongside",
    );
    expect(gate.timedOut).toBe(false);

    const [editor] = llmStarts(kit, (s) => s === "coherence");
    const sections = llmStarts(kit, (s) => s.startsWith("section:"));
    expect(sections).toHaveLength(3);
    for (const s of sections) expect(editor!.seq).toBeLessThan(endOf(kit, (s as { callId: string }).callId));

    // The editor read each writer's brief (plan, evidence, findings) and the rubric — no written text.
    const prompt = kit.script.prompts.coherence[0]!;
    expect(kit.script.systems.coherence[0]).toContain("RUBRIC-MARK");
    for (const t of TOPICS) expect(prompt).toContain(t.plan);
    for (const id of ["E1", "E2", "E3", "E4", "E5", "E6"])
      expect(prompt).toMatch(new RegExp(`^\\[${id}\\] `, "m"));
    expect(prompt).toContain("FINDING-COSTS");
    expect(prompt).not.toContain("[E7]");
    expect(prompt).not.toContain("Zebra");

    // Assembled as the coherence pass's frame is: introduction first (citing), conclusion last.
    expect(report.title).toBe("Research report");
    const body = report.body;
    expect(body).toMatch(/This report answers the question with the evidence gathered \[\d+\]/);
    expect(body.indexOf("This report answers")).toBeLessThan(body.indexOf("## Battery costs"));
    expect(body).toMatch(/## Conclusion\n\nTaken together, the sections answer the question/);
    expect(report.checks.citations.dropped).toBe(0);
  }, 30_000);

  it("keeps the introduction's and conclusion's citations to the evidence the writers were given", async () => {
    let shown: string[] = [];
    const { report } = await write(
      {
        expectCalls: { section: 3, coherence: 1 },
        override: (role, body) => {
          if (role !== "coherence") return undefined;
          shown = [...userText(body).matchAll(/^\[(E\d+)\] /gm)].map((m) => m[1]!);
          return json({
            title: "A framed report",
            introduction: `INTRO cites a given passage [${shown[0]}], an invented one [E9999] and an unused one [E7].`,
            conclusion: `CONCLUSION draws it together [E7, ${shown[1]}] [E9999].`,
          });
        },
      },
      "alongside",
    );
    expect(shown).toEqual(["E1", "E2", "E3", "E4", "E5", "E6"]);
    const body = report.body;
    expect(body).toMatch(/INTRO cites a given passage \[\d+\], an invented one and an unused one\./);
    expect(body).toMatch(/CONCLUSION draws it together \[\d+\]\./);
    expect(body).not.toContain("E9999");
    expect(body).not.toContain("E7");
    const cited = Object.values(report.evidenceByNumber).flat();
    expect(cited).not.toContain("E7");
    expect(cited).toEqual(expect.arrayContaining(["E1", "E2"]));
    // Removed before assembly, not dropped by the citation pass.
    expect(report.checks.citations.dropped).toBe(0);
  });

  it("leaves the frame out when no section was written, and says so when the editor cannot answer", async () => {
    const empty = await write(
      {
        expectCalls: { section: 3, coherence: 1 },
        override: (role) => (role === "section" ? { kind: "text", text: "" } : undefined),
      },
      "alongside",
    );
    expect(empty.report.body).not.toContain("This report answers");
    expect(empty.report.body).not.toContain("## Conclusion");
    await kit!.close();
    kit = undefined;

    const refused = {
      kind: "error",
      status: 400,
      body: { error: { message: "no", type: "invalid_request_error" } },
    } as const;
    const failed = await write(
      {
        expectCalls: { section: 3, coherence: [1, 3] },
        override: (role) => (role === "coherence" ? refused : undefined),
      },
      "alongside",
    );
    expect(failed.kit.events.some((e) => e.type === "warning" && e.code === "COHERENCE_SKIPPED")).toBe(true);
    expect(failed.report.body).not.toContain("## Conclusion");
    expect(failed.report.body).toContain("## Battery costs");
    expect(failed.report.title).toBe("Electric vehicles in 2025");
  });
});

describe("the report's frame written after the sections (default)", () => {
  it("asks the editor once every section has returned, with the written draft", async () => {
    const { kit, report } = await write({ expectCalls: { section: 3, coherence: 1 } });
    const [editor] = llmStarts(kit, (s) => s === "coherence");
    for (const s of llmStarts(kit, (s) => s.startsWith("section:")))
      expect(endOf(kit, (s as { callId: string }).callId)).toBeLessThan(editor!.seq);
    expect(kit.script.prompts.coherence[0]).toContain("<draft>");
    expect(kit.script.prompts.coherence[0]).toContain("The battery pack costs figures changed by 10 percent");
    expect(report.body).toContain("## Conclusion");
  });
});
