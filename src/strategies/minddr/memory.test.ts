/**
 * minddr protocol: the shared XoT memory reaches every search agent and the event log, the
 * sub-reports and the planner's constraints reach the section writers, and the DeepSearch step
 * cap (default 12, or the maxSteps option) holds.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { Reply } from "../../../test/fake-openai/types.ts";
import { minddrPlannerAnswer, searchStepAnswer } from "../../../test/research/minddr-answers.ts";
import type { ChatBody } from "../../../test/research/model-script.ts";
import { json, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { DEFAULT_MAX_STEPS } from "./deep-searcher.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";
const withFields = (reply: Reply, fields: Record<string, unknown>): Reply =>
  reply.kind === "text" ? json({ ...JSON.parse(reply.text), ...fields }) : reply;
const subtaskOf = (user: string) => /Your subtask: (Aspect \d+)/.exec(user)?.[1] ?? "?";

describe("minddr XoT memory", () => {
  it("shows every search agent the planner's rationale and the other agents' findings, and logs the trace", async () => {
    world = await startResearchWorld({
      subtasks: 3,
      expectCalls: {
        planner: 1,
        "search-step": 6,
        reader: 3,
        "sub-report": 3,
        outline: 1,
        section: 4,
        coherence: 1,
      },
      // Each agent takes two steps (it reads, then finishes), so it sees its own findings in its trace.
      override: (role, body) => {
        if (role !== "search-step") return undefined;
        const user = userText(body);
        return withFields(searchStepAnswer(user, {}), {
          findings: [`FINDING of ${subtaskOf(user)} [E1]`],
          ...(user.includes("read_page") ? {} : { done: false }),
        });
      },
    });
    // One agent at a time, so each later agent has the earlier agents' findings to read.
    const result = await world.research({ query, strategy: "minddr", concurrency: 1 });
    expect(result.record.status).toBe("completed");

    const prompts = world.script.prompts["search-step"];
    for (const prompt of prompts) {
      expect(prompt).toContain("<team-memory>");
      expect(prompt).toContain("Understand the question and cover its main aspects with evidence.");
      expect(prompt).toContain("Subtasks: T-1 Aspect 1");
      // An agent never sees its own findings in the shared memory, only in its own trace.
      const own = subtaskOf(prompt);
      const team = /<team-memory>([\s\S]*?)<\/team-memory>/.exec(prompt)![1]!;
      expect(team).not.toContain(`FINDING of ${own}`);
    }
    const ofAspect3 = prompts.filter((p) => subtaskOf(p) === "Aspect 3");
    expect(ofAspect3.length).toBe(2);
    for (const p of ofAspect3) {
      expect(p).toContain("[search:T-1 · finding] FINDING of Aspect 1 [E1]");
      expect(p).toContain("[search:T-2 · finding] FINDING of Aspect 2 [E1]");
      // Sub-reports of finished agents are shared too.
      expect(p).toContain("[search:T-1 · sub-report] The subtask found relevant facts");
    }

    // The trace is in the event log, each entry scoped to the agent that wrote it.
    const xot = result.events.filter((e) => e.type === "xot-add");
    expect(xot[0]).toMatchObject({ agent: "planner", kind: "rationale", scope: "planner" });
    expect(xot.filter((e) => e.kind === "finding").map((e) => [e.agent, e.scope])).toEqual([
      ["search:T-1", "search:T-1"],
      ["search:T-1", "search:T-1"],
      ["search:T-2", "search:T-2"],
      ["search:T-2", "search:T-2"],
      ["search:T-3", "search:T-3"],
      ["search:T-3", "search:T-3"],
    ]);
    expect(xot.filter((e) => e.kind === "sub-report")).toHaveLength(3);
    expect(xot.filter((e) => e.kind === "thought")).toHaveLength(6);
    // The report agent's outline reads the whole trace.
    expect(world.script.prompts.outline[0]).toContain("FINDING of Aspect 2");
  });

  it("gives each section writer the sub-reports as findings and the planner's constraints and required outputs", async () => {
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
      override: (role, body) =>
        role === "planner"
          ? withFields(minddrPlannerAnswer(userText(body), { subtasks: 3 }), {
              constraints: ["CONSTRAINT: Europe only"],
              requiredOutputs: ["OUTPUT: a comparison table"],
            })
          : undefined,
    });
    const result = await world.research({ query, strategy: "minddr" });
    expect(result.record.status).toBe("completed");
    const sections = world.script.prompts.section;
    expect(sections).toHaveLength(4);
    for (const prompt of sections) {
      expect(prompt).toMatch(
        /<findings>\n## sub-report T-\d: Aspect \d\nThe subtask found relevant facts \[E\d+\]/,
      );
      expect(prompt).toContain("Constraints: CONSTRAINT: Europe only");
      expect(prompt).toContain("OUTPUT: a comparison table");
    }
    // Between them, the writers saw every sub-report.
    for (const n of [1, 2, 3])
      expect(sections.some((p) => p.includes(`## sub-report T-${n}: Aspect ${n}`))).toBe(true);
    expect(result.events.find((e) => e.type === "task-framed")).toMatchObject({
      spec: { constraints: ["CONSTRAINT: Europe only"], requiredOutputs: ["OUTPUT: a comparison table"] },
    });

    // The outline's evidence catalogue holds each piece of text once: no excerpt the findings do
    // not cite whose every sentence a longer excerpt of its page already holds.
    const outline = world.script.prompts.outline[0]!;
    const [head, rest] = outline.split("<evidence>\n");
    const cited = new Set(head!.match(/\bE\d+\b/g) ?? []);
    // The catalogue names each page once (`Source: title`) above its excerpts (`[E3] text`).
    let page = "";
    const catalogue: { id: string; page: string; text: string }[] = [];
    for (const line of rest!.split("\n</evidence>")[0]!.split("\n")) {
      const source = /^Source: (.*)$/.exec(line);
      if (source) page = source[1]!;
      const m = /^\[(E\d+)\] (.*)$/.exec(line);
      if (m) catalogue.push({ id: m[1]!, page, text: m[2]!.replace(/ ?…$/, "") });
    }
    expect(catalogue.length).toBeGreaterThan(3);
    for (const e of catalogue) {
      if (cited.has(e.id)) continue;
      const longer = catalogue.filter((o) => o.page === e.page && o.text.length > e.text.length);
      const sentences = e.text.split(/(?<=[.!?])\s+/);
      expect(
        sentences.every((s) => longer.some((o) => o.text.includes(s))),
        e.id,
      ).toBe(false);
    }
  });
});

describe("minddr DeepSearch step cap", () => {
  /** A searcher that never finishes: every step asks for one new search. */
  const endless = (role: string, body: ChatBody): Reply | undefined => {
    if (role !== "search-step") return undefined;
    const user = userText(body);
    const n = (user.match(/^Step \d+:/gm) ?? []).length;
    return json({
      thought: "Keep looking.",
      done: false,
      actions: [{ tool: "web_search", query: `${subtaskOf(user)} angle ${n}` }],
    });
  };

  it(`runs ${DEFAULT_MAX_STEPS} model steps per agent by default`, async () => {
    expect(DEFAULT_MAX_STEPS).toBe(12);
    world = await startResearchWorld({
      subtasks: 3,
      override: endless,
      expectCalls: { planner: 1, "search-step": 36, "sub-report": 3, outline: 1, section: 4, coherence: 1 },
    });
    const result = await world.research({ query, strategy: "minddr" });
    const ends = result.events.filter((e) => e.type === "node-end" && e.nodeId !== "T-4");
    expect(ends.map((e) => e.type === "node-end" && e.summary)).toEqual(
      Array(3).fill(expect.stringContaining("13 steps, stop: step-cap")),
    );
  });

  it("honours the maxSteps option", async () => {
    world = await startResearchWorld({
      subtasks: 3,
      override: endless,
      expectCalls: { planner: 1, "search-step": 9, "sub-report": 3, outline: 1, section: 4, coherence: 1 },
    });
    const result = await world.research({ query, strategy: "minddr", maxSteps: 3 });
    expect(result.record.status).toBe("completed");
  });
});
