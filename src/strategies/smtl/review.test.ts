/**
 * smtl's deep-research mode with plan review (the JSON protocol, its default): the run stops
 * after the agent's subtask list, before any tool call; a new Dossier over the same store (a
 * restart) answers with an edit that removes one subtask and adds one, and the agent then works
 * exactly the edited subtasks, in order — told the list was edited — while the list itself is
 * replayed from the journal, not asked again.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { RESEARCH_MODE_LINES } from "./research-prompts.ts";
import { EDITED_SUBTASKS_NOTE } from "./review.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "How were the stations of the northern line built and rebuilt?";
type Kind = keyof typeof RESEARCH_MODE_LINES;
const on = (kind: Kind, reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)): ScriptStep => ({
  match: (prompt: string) => prompt.includes(RESEARCH_MODE_LINES[kind]),
  reply,
});
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
const current = (call: ScriptedCall) => /Current subtask: (S\d+ .*)/.exec(call.prompt)?.[1];

/** One subtask worked: a search, then an answer citing what it found. */
const worked = (n: number): ScriptStep[] => [
  on("subtask", {
    json: {
      analysis: "search first",
      plan: ["search"],
      calls: [{ tool: "web_search", query: `station ${n}` }],
    },
  }),
  on("subtask", (call) => {
    const id = shownIds(call.prompt.split("<observations>").at(-1) ?? "")[0];
    return {
      json: {
        analysis: "found it",
        subtaskAnswer: { text: `Station ${n} is documented [${id}].`, citations: [id] },
      },
    };
  }),
];

describe("smtl plan review (deep research, JSON protocol)", () => {
  it("works exactly the edited subtasks: one removed, one added", async () => {
    kit = await startSmtlKit([
      on("subtasks", {
        json: {
          analysis: "three strands",
          subtasks: [
            { title: "Openings", goal: "when each station opened" },
            { title: "Rebuilding", goal: "who rebuilt the stations and when" },
            { title: "Architects", goal: "who designed the stations" },
          ],
        },
      }),
      ...worked(1),
      ...worked(4),
      ...worked(7),
      on("report", (call) => {
        const ids = shownIds(call.lastUser);
        return { json: { report: `# Stations\n\n## Findings\n\nThe stations are documented [${ids[0]}].` } };
      }),
    ]);
    const paused = await kit.dossier.research(QUESTION, { strategy: "smtl", reviewPlan: true }).done;
    expect(paused.status).toBe("awaiting-review");
    expect(paused.plan!.items.map((i) => [i.id, i.title, i.description])).toEqual([
      ["S1", "Openings", "when each station opened"],
      ["S2", "Rebuilding", "who rebuilt the stations and when"],
      ["S3", "Architects", "who designed the stations"],
    ]);
    // No tool ran before the review.
    expect(kit.queries).toEqual([]);
    await kit.dossier.close();

    const dossier = createDossier(kit.dossierOptions);
    try {
      const [openings, , architects] = paused.plan!.items;
      const answered = await dossier.runs.review(paused.runId, {
        action: "edit",
        plan: {
          items: [openings, architects, { title: "Closures", description: "which stations closed and why" }],
        },
      });
      const result = await answered.handle!.done;
      expect(result.status).toBe("completed");
      const steps = kit.model.calls.filter((c) => c.prompt.includes(RESEARCH_MODE_LINES.subtask));
      expect([...new Set(steps.map(current))]).toEqual(["S1 Openings", "S2 Architects", "S3 Closures"]);
      // The agent was told the list was edited, and shown it.
      expect(steps[0]!.prompt).toContain(EDITED_SUBTASKS_NOTE);
      expect(steps[0]!.prompt).toMatch(/S3 \[open\] Closures: which stations closed and why/);
      expect(steps[0]!.prompt).not.toMatch(/\[open\] Rebuilding/);
      // The subtask list was not asked again: the journal replayed it.
      expect(kit.model.calls.filter((c) => c.prompt.includes(RESEARCH_MODE_LINES.subtasks))).toHaveLength(1);
      const events = await dossier.runs.events(paused.runId);
      expect(ofType(events, "task-framed").at(-1)!.spec).toMatchObject({
        subtasks: [{ title: "Openings" }, { title: "Architects" }, { title: "Closures" }],
      });
      expect(ofType(events, "plan-reviewed")[0]).toMatchObject({
        action: "edit",
        changes: { removed: ["S2"], added: ["new-1"], reordered: false },
      });
    } finally {
      await dossier.close();
    }
  }, 30_000);

  it("is refused before anything runs where smtl has no plan point (its native protocol)", async () => {
    kit = await startSmtlKit([]);
    await expect(
      kit.dossier.research(QUESTION, {
        strategy: "smtl",
        strategyOptions: { protocol: "native" },
        reviewPlan: true,
      }).done,
    ).rejects.toMatchObject({ code: "INPUT_INVALID", message: expect.stringMatching(/no plan to review/) });
    expect(await kit.dossier.runs.list()).toEqual([]);
  });
});
