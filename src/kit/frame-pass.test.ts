/**
 * The frame pass's prompt: what each section writer was given, compactly — every evidence id
 * with a one-line excerpt (shown once), findings citing only the section's evidence — within a
 * character budget that every section shares fairly, however many and long the sections.
 */

import { describe, expect, it } from "vitest";
import type { Evidence } from "../core/source.ts";
import { renderDraft } from "./coherence.ts";
import {
  DEFAULT_MAX_FRAME_PROMPT_CHARS,
  FRAME_EXCERPT_CHARS,
  type FrameSectionBrief,
  framePrompt,
  frameSystem,
} from "./frame-pass.ts";

const by = { tool: "fetch", callId: "c1" };
const passage = (n: number, chars: number): Evidence => ({
  id: `E${n}`,
  sourceId: `S${n}`,
  text: `Passage ${n} reports that adoption grew. ${"It gives figures by region and year. ".repeat(Math.ceil(chars / 37))}`.slice(
    0,
    chars,
  ),
  retrievedBy: by,
});

function brief(
  i: number,
  evidence: Evidence[],
  findings: string,
  plan = `Explain aspect ${i} of adoption`,
): FrameSectionBrief {
  return {
    sectionId: String(i),
    title: `Aspect ${i}`,
    plan,
    findings: [{ label: `T-${i} search`, text: findings }],
    evidence,
  };
}

/** The section blocks of a prompt, by id. */
const blocks = (prompt: string) =>
  new Map(
    [...prompt.matchAll(/<section id="(\d+)"[^>]*>\n([\s\S]*?)\n<\/section>/g)].map((m) => [m[1]!, m[0]]),
  );

describe("the frame prompt", () => {
  it("shows every evidence id with a one-line excerpt once, and findings citing only the section's evidence", () => {
    const shared = passage(2, 600);
    const prompt = framePrompt("How is adoption changing?", {
      title: "Adoption",
      language: "en",
      sections: [
        brief(1, [passage(1, 600), shared], "FINDING-1 adoption rose [E1, E999] and fell [E42]."),
        brief(2, [shared, passage(3, 100)], "FINDING-2 [E3]"),
      ],
    });
    const lines = [...prompt.matchAll(/^\[(E\d+)\] (.*)$/gm)];
    expect(lines.map((m) => m[1])).toEqual(["E1", "E2", "E3"]);
    for (const [, , excerpt] of lines) expect(excerpt!.length).toBeLessThanOrEqual(FRAME_EXCERPT_CHARS);
    expect(blocks(prompt).get("2")).toContain("Also given (excerpts above): E2");
    expect(prompt).toContain("FINDING-1 adoption rose [E1] and fell.");
    expect(prompt).not.toMatch(/E999|E42/);
    expect(prompt).toMatch(/^Research question: How is adoption changing\?\nWorking title: Adoption\n/);
  });

  it("stays within its budget for many long sections, each with a fair share and every id listed", () => {
    const sections = Array.from({ length: 24 }, (_, k) => {
      const i = k + 1;
      const evidence = Array.from({ length: 12 }, (_, j) => passage(i * 100 + j, 900));
      return brief(
        i,
        evidence,
        `FINDING-${i} ${"The research established a long list of facts. ".repeat(120)}`,
        "P".repeat(2000),
      );
    });
    const prompt = framePrompt("How is adoption changing?", { title: "Adoption", language: "en", sections });
    expect(prompt.length).toBeLessThanOrEqual(DEFAULT_MAX_FRAME_PROMPT_CHARS);
    const shown = blocks(prompt);
    expect(shown.size).toBe(24);
    const lengths = [...shown.values()].map((b) => b.length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(0.9 * Math.max(...lengths));
    for (const s of sections) {
      const block = shown.get(s.sectionId)!;
      for (const e of s.evidence) expect(block).toContain(e.id);
      expect(block).toContain(`FINDING-${s.sectionId}`);
    }
  });

  it("trims only the long briefs: a short section is shown whole beside long ones", () => {
    const short = brief(1, [passage(1, 120)], "FINDING-SHORT all of it stays.");
    const long = Array.from({ length: 8 }, (_, k) =>
      brief(
        k + 2,
        Array.from({ length: 12 }, (_, j) => passage((k + 2) * 100 + j, 900)),
        "F ".repeat(3000),
      ),
    );
    const prompt = framePrompt("q?", { title: "t", language: "en", sections: [short, ...long] });
    expect(prompt.length).toBeLessThanOrEqual(DEFAULT_MAX_FRAME_PROMPT_CHARS);
    expect(blocks(prompt).get("1")).toContain("FINDING-SHORT all of it stays.");
    expect(blocks(prompt).get("1")).toContain(`[E1] ${passage(1, 120).text.trim()}`);
  });

  it("is smaller than the coherence pass's draft of a normal report", () => {
    const draft = renderDraft(
      Array.from({ length: 6 }, (_, i) => ({
        sectionId: String(i + 1),
        title: `Aspect ${i + 1}`,
        content: "A written paragraph citing evidence [E1]. ".repeat(75),
        allowed: new Set(["E1"]),
        fallback: false,
      })),
    );
    expect(draft.length).toBeGreaterThan(DEFAULT_MAX_FRAME_PROMPT_CHARS);
  });

  it("is asked of the editor (the coherence role), with the rubric", () => {
    const system = frameSystem({ currentDate: "2026-03-01" }, "en", "RUBRIC-MARK");
    expect(system).toContain("You are the editor of a research report");
    expect(system).toContain("RUBRIC-MARK");
    expect(system).not.toContain("writing one section of a long research report");
  });
});
