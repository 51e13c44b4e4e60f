/**
 * The coherence pass in a minddr run (`frame: "after"`): the editor sees the whole draft (not
 * sections cut short), writes the introduction and conclusion, and may revise section openings
 * and closings — only with citations intact.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { Reply } from "../../../test/fake-openai/types.ts";
import { sectionAnswer } from "../../../test/research/minddr-answers.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { citedNumbers } from "../../core/citations.ts";
import { citedEvidenceIds } from "../../kit/coherence-revisions.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A long section: the default cited paragraph, a long middle paragraph and a closing one. */
function longSection(user: string): Reply {
  const first = sectionAnswer(user, {});
  const id = /Write section (\d+)/.exec(user)?.[1];
  const middle = `Context for section ${id}: ${"the sources describe a steady pattern across regions. ".repeat(40)}`;
  const text = `${first.kind === "text" ? first.text : ""}\n\n${middle}\n\nSection ${id} closes here, MARK-END-${id}.`;
  return { kind: "text", text };
}

/** The sections of the draft the editor was shown. */
function draftSections(user: string): Map<string, string> {
  return new Map(
    [...user.matchAll(/<section id="(\d+)" title="[^"]*">\n([\s\S]*?)\n<\/section>/g)].map((m) => [
      m[1]!,
      m[2]!,
    ]),
  );
}

function editor(user: string): Reply {
  const draft = draftSections(user);
  const opening = (id: string) => draft.get(id)!.split("\n\n")[0]!;
  const draftIds = new Set(citedEvidenceIds(user));
  const outside = Array.from({ length: 500 }, (_, i) => `E${i + 1}`).find((id) => !draftIds.has(id))!;
  const s1Ids = citedEvidenceIds(draft.get("1")!);
  return json({
    title: "An edited report",
    introduction: `INTRO frames the question [${[...draftIds][0]}] and mentions an uncited source [${outside}].`,
    conclusion: `CONCLUSION draws the sections together [${s1Ids[0]}].`,
    revisions: [
      { sectionId: "1", part: "opening", text: `To set the scene, ${opening("1")}` },
      { sectionId: "2", part: "opening", text: `${opening("2")} This echoes another source [${outside}].` },
      { sectionId: "4", part: "closing", text: "In closing, the outlook section ends MARK-REVISED-4." },
    ],
  });
}

describe("minddr coherence pass", () => {
  it("sees the whole draft and revises openings, closings, introduction and conclusion with citations intact", async () => {
    const written: string[] = [];
    let outside = "";
    world = await startResearchWorld({
      subtasks: 3,
      expectCalls: {
        planner: 1,
        "search-step": 3,
        reader: 3,
        "sub-report": 3,
        outline: 1,
        section: 4,
        coherence: 1,
      },
      override: (role, body) => {
        const user = userText(body);
        if (role === "section") {
          const reply = longSection(user);
          if (reply.kind === "text") written.push(reply.text);
          return reply;
        }
        if (role === "coherence") {
          const reply = editor(user);
          if (reply.kind === "text") outside = /uncited source \[(E\d+)\]/.exec(reply.text)![1]!;
          return reply;
        }
        return undefined;
      },
    });
    const result = await world.research({
      query: "How is topic adoption changing?",
      strategy: "minddr",
      strategyOptions: { frame: "after" },
    });
    expect(result.record.status).toBe("completed");
    const report = result.outcome!.report;

    // The editor saw every section in full.
    const seen = world.script.prompts.coherence[0]!;
    expect(written).toHaveLength(4);
    for (const text of written) {
      expect(text.length).toBeGreaterThan(2000);
      expect(seen).toContain(text);
    }

    // The valid opening revision replaced section 1's first paragraph, right under its heading.
    expect(report.markdown).toMatch(/## Background\n\nTo set the scene, [^\n]*\[\d+\]/);
    // The revision that cited evidence section 2 does not cite was rejected; section 4's
    // closing (no citations to keep) was replaced.
    expect(report.markdown).not.toContain("This echoes another source");
    expect(report.markdown).toContain("In closing, the outlook section ends MARK-REVISED-4.");
    expect(report.markdown).not.toContain("MARK-END-4");
    for (const id of ["1", "2", "3"]) expect(report.markdown).toContain(`MARK-END-${id}`);
    const rejected = result.events.filter(
      (e) => e.type === "warning" && e.code === "COHERENCE_REVISION_REJECTED",
    );
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      message: expect.stringMatching(/^section 2 opening: cites E\d+, which the section does not cite$/),
    });

    // Introduction first, conclusion last; the id the draft never cited was removed, not dropped later.
    expect(report.title).toBe("An edited report");
    const body = report.body;
    expect(body.indexOf("INTRO frames the question")).toBeLessThan(body.indexOf("## Background"));
    expect(body).toMatch(/## Conclusion\n\nCONCLUSION draws the sections together \[\d+\]/);
    expect(body).toMatch(/mentions an uncited source\./);
    expect(Object.values(report.evidenceByNumber).flat()).not.toContain(outside);
    expect(report.checks.citations.dropped).toBe(0);
    const numbers = citedNumbers(report.body);
    expect(new Set(numbers)).toEqual(new Set(report.references.map((r) => r.number)));
  });
});
