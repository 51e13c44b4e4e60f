/**
 * Independent work starts together: the scripted model holds the answers of one role back until
 * as many calls of that role are in flight as the protocol makes independent. If they were run
 * in waves (a self-made queue), the held calls would never all arrive; a safety timeout then
 * releases them and the test fails on the flag, not on a duration.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../../test/fake-openai/types.ts";
import { citedIds } from "../../../test/research/minddr-answers.ts";
import type { ChatBody } from "../../../test/research/model-script.ts";
import { heldUntil, holdAll } from "../../../test/research/overlap-gate.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const textOf = (content: ChatBody["messages"][number]["content"]): string =>
  typeof content === "string" ? content : content.map((p) => p.text ?? "").join("");

/**
 * Holds the first `n` requests whose system prompt contains `marker` until all `n` are in
 * flight. `timedOut` is set when the safety timeout had to release them.
 */
function gate(marker: string, n: number, safetyMs = 15_000) {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => {
    release = r;
  });
  const state = {
    timedOut: false,
    hold: async (request: RecordedRequest): Promise<void> => {
      const body = request.body as ChatBody;
      if (!body.messages?.some((m) => m.role === "system" && textOf(m.content).includes(marker))) return;
      if (arrived >= n) return;
      arrived += 1;
      if (arrived === n) release();
      const timer = setTimeout(() => {
        state.timedOut = true;
        release();
      }, safetyMs);
      await all;
      clearTimeout(timer);
    },
  };
  return state;
}

/** An outline of six sections over the evidence the outline call was shown. */
function sixSections(body: ChatBody) {
  const user = body.messages
    .filter((m) => m.role === "user")
    .map((m) => textOf(m.content))
    .join("\n");
  const catalogue = citedIds(user);
  const titles = ["Background", "Costs", "Adoption", "Regions", "Risks", "Outlook"];
  return {
    kind: "text" as const,
    text: JSON.stringify({
      title: "Research report on the question",
      sections: titles.map((title, i) => ({
        title,
        plan: `Explain the ${title.toLowerCase()} with the collected evidence`,
        evidence: catalogue.slice(i, i + 2),
        subsections: [],
      })),
    }),
  };
}

describe("independent work starts together", () => {
  it("minddr: all five search agents and all six section writers are in flight before any answers", async () => {
    const agents = gate("search agent working on one subtask", 5);
    const writers = gate("writing one section of a long research report", 6);
    world = await startResearchWorld({
      subtasks: 5,
      hold: async (request) => {
        await agents.hold(request);
        await writers.hold(request);
      },
      override: (role, body) => (role === "outline" ? sixSections(body) : undefined),
      expectCalls: {
        planner: 1,
        "search-step": 5,
        reader: 5,
        "sub-report": 5,
        outline: 1,
        section: 6,
        coherence: 1,
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?", strategy: "minddr" });
    expect(result.record.status).toBe("completed");
    expect(agents.timedOut).toBe(false);
    expect(writers.timedOut).toBe(false);
    // And the event log shows it: every writer's call started before the first one ended.
    const events = result.events;
    const isSection = (e: (typeof events)[number]) => e.scope?.startsWith("section:") ?? false;
    const firstEnd = events.find((e) => e.type === "llm-end" && isSection(e))!.seq;
    expect(events.filter((e) => e.type === "llm-start" && isSection(e) && e.seq < firstEnd)).toHaveLength(6);
    expect(events.filter((e) => e.type === "section-written")).toHaveLength(6);
  }, 120_000);

  it("minddr: the report's frame is asked alongside the section writers, none of them answered before it arrives", async () => {
    // Every section writer is held until the editor's call has arrived: an editor that waited
    // for the written sections (the coherence pass) would never arrive while they are held.
    const sections = heldUntil(
      (r) => r.system.includes("writing one section of a long research report"),
      (r) => r.system.includes("editor of a research report"),
    );
    world = await startResearchWorld({
      subtasks: 3,
      hold: holdAll(sections),
      override: (role, body) => (role === "outline" ? sixSections(body) : undefined),
      expectCalls: {
        planner: 1,
        "search-step": 3,
        reader: 3,
        "sub-report": 3,
        outline: 1,
        section: 6,
        coherence: 1,
      },
    });
    const result = await world.research({ query: "How is topic adoption changing?", strategy: "minddr" });
    expect(result.record.status).toBe("completed");
    expect(sections.timedOut).toBe(false);
    const events = result.events;
    const frame = events.find((e) => e.type === "llm-start" && e.scope === "coherence")!;
    const sectionEnds = events.filter(
      (e) => e.type === "llm-end" && (e.scope?.startsWith("section:") ?? false),
    );
    expect(sectionEnds).toHaveLength(6);
    // Issued before any section was answered, and no model call starts after the last section.
    expect(frame.seq).toBeLessThan(sectionEnds[0]!.seq);
    const lastSection = sectionEnds.at(-1)!.seq;
    expect(events.filter((e) => e.type === "llm-start" && e.seq > lastSection)).toEqual([]);
    // The editor was shown what the section writers were given (their titles and plans).
    expect(world.script.prompts.coherence[0]).toContain("Explain the costs with the collected evidence");
  }, 120_000);
});
