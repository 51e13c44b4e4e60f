/**
 * minddr under the paper's settings (`protocol: "native"`), run through `Dossier.research` with
 * a strict scripted model and a loopback search server: each DeepSearch agent's prompt is its
 * appended trajectory — every earlier step's thought, actions and observations, in order, the
 * oldest observations abbreviated first when the context is small — and the agent chooses its
 * first step (the planner's queries are never run); the Report agent outlines, then writes the
 * whole report in exactly one call, and every citation kept resolves to a passage retrieved in
 * the run.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { pageText, readerReply, type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import { APPENDED_STEP_OUTPUT_TOKENS, SCHEMA_ALLOWANCE } from "./appended-searcher.ts";
import { searcherSystem } from "./step.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "How were the stations of the northern line built?";
const SUBTASKS = ["Subtask A", "Subtask B", "Subtask C"];

/** The line of each call kind's system prompt. */
const MARKERS = {
  planner: "planning agent of a research team",
  step: "search agent working on one subtask",
  reader: "You read a single web page on behalf of a researcher",
  subReport: "findings of one research subtask",
  outline: "Design the outline",
  report: "writing the complete research report in a single pass",
} as const;
type Kind = keyof typeof MARKERS;

const kindOf = (call: Pick<ScriptedCall, "system">): Kind | "other" =>
  (Object.keys(MARKERS) as Kind[]).find((k) => call.system.includes(MARKERS[k])) ?? "other";

/** `n` steps each taken only by a call of `kind`, answered by `reply`. */
const calls = (kind: Kind, n: number, reply: (call: ScriptedCall) => ScriptReply): ScriptStep[] =>
  Array.from({ length: n }, () => ({ match: (p: string) => p.includes(MARKERS[kind]), reply }));

/** The planner: three subtasks whose queries no agent may run by itself. */
const plannerReply = (): ScriptReply => ({
  json: {
    intent: "Find when the stations opened and who designed them.",
    title: "The northern line stations",
    constraints: [],
    requiredOutputs: [],
    subtasks: SUBTASKS.map((title) => ({
      title,
      goal: `Find the facts of ${title.toLowerCase()} about the stations`,
      queries: [`planned query for ${title}`],
    })),
  },
});

/** Which subtask (1-based) and which step (1-based) a search-step prompt is for. */
function stepOf(call: ScriptedCall): { agent: number; step: number } {
  const title = /Your subtask: (Subtask [A-C]) —/.exec(call.prompt)?.[1] ?? "";
  const trajectory = /<trajectory>\n([\s\S]*?)\n<\/trajectory>/.exec(call.prompt)?.[1] ?? "";
  return { agent: SUBTASKS.indexOf(title) + 1, step: (trajectory.match(/^Step \d+$/gm) ?? []).length + 1 };
}

/** The query agent `agent` chooses at step `step` (1 or 2). */
const chosenQuery = (agent: number, step: number) =>
  step === 1 ? `station ${agent} opening` : `station ${agent + 6} architect`;

/**
 * An agent's three steps: a search of its own choice, a second search, then it reads the first
 * page of its first search and finishes.
 */
function stepReply(call: ScriptedCall): ScriptReply {
  const { agent, step } = stepOf(call);
  if (step <= 2)
    return {
      json: {
        thought: `thought ${agent}.${step}`,
        findings: [],
        done: false,
        actions: [{ tool: "web_search", query: chosenQuery(agent, step) }],
      },
    };
  const url = new RegExp(`\\] Station ${agent} — (\\S+)`).exec(call.prompt)?.[1];
  return {
    json: {
      thought: `thought ${agent}.3`,
      findings: [],
      done: true,
      actions: [{ tool: "read_page", url, goal: "opening year and architect" }],
    },
  };
}

const outlineReply = (): ScriptReply => ({
  json: {
    title: "The northern line stations",
    sections: ["Openings", "Design", "Rebuilding"].map((title) => ({
      title,
      plan: `What the evidence says about the ${title.toLowerCase()}`,
      evidence: [],
      subsections: [],
    })),
  },
});

/**
 * The report: one sentence per id shown to it (its excerpt), one invented citation, and one of
 * an excerpt retrieved in the run but not shown to it (the first id missing from its list).
 */
function reportReply(call: ScriptedCall): ScriptReply {
  const block = call.prompt.slice(call.prompt.indexOf("<evidence>"));
  const all = [...block.matchAll(/^\[(E\d+)\] ([^\n]+)$/gm)];
  const shown = new Set(all.map((m) => m[1]));
  const unshown = Array.from({ length: all.length }, (_, i) => `E${i + 1}`).find((id) => !shown.has(id));
  const lines = all.slice(0, 6);
  const cite = (slice: typeof lines) =>
    slice.map(([, id, text]) => `${text!.replace(/^… /, "").replace(/ ?…$/, "")} [${id}]`).join(" ");
  return {
    text: [
      "<final_answer>",
      "# The northern line stations",
      "",
      "## Openings",
      "",
      cite(lines.slice(0, 3)),
      "",
      "## Design",
      "",
      `${cite(lines.slice(3))} A claim without a source [E999]. A claim from elsewhere [${unshown}].`,
      "</final_answer>",
    ].join("\n"),
  };
}

/** The whole script of a native run with three agents of three steps each. */
function nativeScript(): ScriptStep[] {
  return [
    ...calls("planner", 1, plannerReply),
    ...calls("step", 9, stepReply),
    ...calls("reader", 3, readerReply),
    ...calls("subReport", 3, (call) => ({
      text: `The subtask found ${shownIds(call.prompt)
        .slice(0, 2)
        .map((id) => `[${id}]`)
        .join(" ")}.`,
    })),
    ...calls("outline", 1, outlineReply),
    ...calls("report", 1, reportReply),
  ];
}

const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

async function runNative(strategyOptions: Record<string, unknown> = {}) {
  kit = await startSmtlKit(nativeScript());
  const events: DossierEvent[] = [];
  const result = await kit.dossier.research(QUESTION, {
    strategy: "minddr",
    concurrency: 1,
    strategyOptions: { protocol: "native", ...strategyOptions },
    onEvent: (e) => events.push(e),
  }).done;
  const steps = kit.model.calls.filter((c) => kindOf(c) === "step");
  const ofAgent = (agent: number) => steps.filter((c) => stepOf(c).agent === agent);
  return { result, events, steps, ofAgent };
}

/** The excerpt of page `n` as an observation in full shows it. */
const excerpt = (n: number) => pageText(n);

describe("minddr native: the appended DeepSearch agent", () => {
  it("chooses its first step itself: no planner query runs, and no tool call precedes the agent's first step", async () => {
    const { result, events, ofAgent } = await runNative();
    expect(result.status).toBe("completed");
    for (const agent of [1, 2, 3]) {
      const first = ofAgent(agent)[0]!;
      expect(first.prompt).toContain("You have taken no step yet: choose your first actions.");
      expect(first.prompt).not.toContain("<trajectory>");
      expect(first.prompt).not.toContain("planned query");
    }
    // The searches are exactly the ones the agents chose, in order; the planner's never ran.
    expect(kit!.queries).toEqual([1, 2, 3].flatMap((a) => [chosenQuery(a, 1), chosenQuery(a, 2)]));
    const firstStep = events.find((e) => e.type === "llm-start" && e.role === "searcher")!;
    const firstTool = ofType(events, "tool-start")[0]!;
    expect(firstTool.seq).toBeGreaterThan(firstStep.seq);
  });

  it("shows every earlier step's thought, actions and observation in order in the next step's prompt", async () => {
    const { ofAgent } = await runNative();
    for (const agent of [1, 2, 3]) {
      const prompts = ofAgent(agent).map((c) => c.prompt);
      expect(prompts).toHaveLength(3);
      const third = prompts[2]!;
      // Step 1's search found pages agent..agent+2, step 2's pages agent+6..agent+8: every
      // excerpt is there in full, in the order the steps ran.
      const positions = [
        third.indexOf(`thought ${agent}.1`),
        third.indexOf(`web_search "${chosenQuery(agent, 1)}"`),
        ...[0, 1, 2].map((i) => third.indexOf(excerpt(agent + i))),
        third.indexOf(`thought ${agent}.2`),
        third.indexOf(`web_search "${chosenQuery(agent, 2)}"`),
        ...[6, 7, 8].map((i) => third.indexOf(excerpt(agent + i))),
      ];
      for (const p of positions) expect(p).toBeGreaterThan(-1);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      // The appended trajectory grows: the second prompt is the first's trajectory plus step 2.
      const trajectoryOf = (p: string) => /<trajectory>\n([\s\S]*?)\n<\/trajectory>/.exec(p)?.[1] ?? "";
      expect(trajectoryOf(third).startsWith(trajectoryOf(prompts[1]!))).toBe(true);
      expect(third).not.toContain("abbreviated to fit the context window");
    }
  });

  it("abbreviates the oldest observation first when the context window is small, never the task", async () => {
    // The context the third step needs in full, less half of what step 1's excerpts take: room
    // for step 2's observation in full but not for step 1's beside it.
    const full = (await runNative()).ofAgent(1)[2]!;
    await kit!.close();
    const currentDate = /Today's date is (\S+)\./.exec(full.system)![1]!;
    const needed =
      estimateTokens(searcherSystem({ currentDate })) +
      APPENDED_STEP_OUTPUT_TOKENS +
      SCHEMA_ALLOWANCE +
      estimateTokens(full.lastUser);
    const small = needed - Math.ceil(estimateTokens([1, 2, 3].map(excerpt).join(" ")) / 2);
    const { ofAgent } = await runNative({ contextWindow: small });
    const third = ofAgent(1)[2]!.prompt;
    expect(third).toContain(`Your subtask: Subtask A — Find the facts of subtask a about the stations`);
    expect(third).toContain(`Overall question: ${QUESTION}`);
    const [step1, step2] = third.split(/^Step 2$/m);
    // Step 1: its thought and action kept, its excerpts left out.
    expect(step1).toContain("thought 1.1");
    expect(step1).toContain(`web_search "${chosenQuery(1, 1)}"`);
    expect(step1).toContain("abbreviated to fit the context window");
    for (const n of [1, 2, 3]) expect(step1).not.toContain(excerpt(n));
    // Step 2, the newer one: in full.
    expect(step2).not.toContain("abbreviated to fit the context window");
    for (const n of [7, 8, 9]) expect(step2).toContain(excerpt(n));
  });
});

describe("minddr native: the single-pass Report agent", () => {
  it("outlines, then writes the whole report in exactly one writer call, every citation resolving to a retrieved passage", async () => {
    const { result, events } = await runNative();
    expect(result.status).toBe("completed");
    const kinds = kit!.model.calls.map(kindOf);
    expect(kinds.filter((k) => k === "report")).toHaveLength(1);
    expect(kinds.filter((k) => k === "outline")).toHaveLength(1);
    expect(kinds).not.toContain("other");
    // The outline comes before the report, and the report call is the last model call.
    expect(kinds.indexOf("outline")).toBeLessThan(kinds.indexOf("report"));
    expect(kinds.at(-1)).toBe("report");
    const writerCalls = ofType(events, "llm-start").filter((e) => e.role === "writer");
    expect(writerCalls.map((e) => e.scope)).toEqual(["outline", "report"]);
    // The writer saw the XoT memory (the sub-reports) and the outline.
    const call = kit!.model.calls.find((c) => kindOf(c) === "report")!;
    expect(call.prompt).toContain("<team-memory>");
    expect(call.prompt).toContain("The subtask found");
    expect(call.prompt).toMatch(/Outline:\n1 Openings/);

    const report = result.report!;
    const shown = new Set(shownIds(call.prompt.slice(call.prompt.indexOf("<evidence>"))));
    const retrieved = new Set(ofType(events, "evidence-add").map((e) => (e.evidence as { id: string }).id));
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(0);
    for (const n of numbers) {
      const ids = report.evidenceByNumber[n]!;
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        expect(shown.has(id)).toBe(true);
        expect(retrieved.has(id)).toBe(true);
      }
    }
    // The invented id and the one of an excerpt the writer was not shown are dropped, nothing else.
    expect(retrieved.size).toBeGreaterThan(shown.size);
    expect(report.markdown).not.toContain("E999");
    expect(report.checks.citations.byReason).toEqual({ "unknown-evidence": 1, "not-given": 1 });
    expect(report.body).toContain("## Openings");
    expect(report.title).toBe("The northern line stations");
  });
});
