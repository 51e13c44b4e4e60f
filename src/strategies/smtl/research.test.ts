/**
 * smtl's deep-research mode (seed: SMTL App. D.1) run through `Dossier.research` with a strict
 * scripted model and a loopback search server: the subtask list precedes every tool call, each
 * subtask is worked with an analysis, parallel calls and a cited answer, and the report written
 * after the last subtask becomes a full cited report whose every number resolves.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { readerReply, type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { smtlOptionsSchema } from "./definition.ts";
import { RESEARCH_MODE_LINES } from "./research-prompts.ts";

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
const READER = "You read a single web page on behalf of a researcher";
const kindOf = (call: ScriptedCall): Kind | "reader" | "other" =>
  call.system.includes(READER)
    ? "reader"
    : ((Object.keys(RESEARCH_MODE_LINES) as Kind[]).find((k) =>
        call.system.includes(RESEARCH_MODE_LINES[k]),
      ) ?? "other");
const search = (query: string) => ({ tool: "web_search", query });
const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);
/** Evidence ids of the newest observations in a prompt. */
const newest = (call: ScriptedCall) => {
  const blocks = call.prompt.split("<observations>");
  return shownIds(blocks.at(-1) ?? "");
};

describe("smtl deep research (mode research, the default)", () => {
  it("subtask list, then per subtask analysis, parallel calls and a cited answer, then a full cited report", async () => {
    kit = await startSmtlKit([
      on("subtasks", {
        json: {
          analysis: "two strands: the openings and the rebuilding",
          subtasks: [
            { title: "Openings", goal: "when each station opened" },
            { title: "Rebuilding", goal: "who rebuilt the stations and when" },
          ],
        },
      }),
      on("subtask", {
        json: {
          analysis: "search the opening years first",
          plan: ["search the opening years", "confirm on a station page"],
          calls: [search("station 1 opening"), search("station 4 opening")],
        },
      }),
      on("subtask", (call) => {
        const [a, b] = newest(call);
        return {
          json: {
            analysis: "the results give the years",
            subtaskAnswer: {
              text: `Station 1 opened in 1901 [${a}] and station 2 in 1902 [${b}].`,
              citations: [a, b],
            },
          },
        };
      }),
      on("subtask", (call) => {
        const url = /\] Station 3 — (\S+)/.exec(call.prompt)?.[1];
        return {
          json: {
            analysis: "read the page that names the architect",
            plan: ["read a station page"],
            calls: [{ tool: "crawl_page", url, goal: "who designed and rebuilt it" }],
          },
        };
      }),
      { match: (prompt: string) => prompt.includes(READER), reply: readerReply },
      on("subtask", (call) => {
        const [c] = newest(call);
        return {
          json: {
            analysis: "the page names the architect",
            subtaskAnswer: {
              text: `Mara Vell designed station 3, rebuilt after the flood of 1953 [${c}].`,
              citations: [c],
            },
          },
        };
      }),
      on("report", (call) => {
        expect(call.lastUser).toMatch(/S1 \[answered\] Openings[\s\S]*answer: Station 1 opened/);
        const ids = shownIds(call.lastUser);
        return {
          json: {
            report: [
              "# The northern line's stations",
              "",
              "## Introduction",
              "",
              `The stations opened from 1901 [${ids[0]}].`,
              "",
              "## Openings",
              "",
              `Station 2 followed in 1902 [${ids[1]}].`,
              "",
              "## Rebuilding",
              "",
              `Mara Vell designed station 3 [${ids.at(-1)}] and an invented source says more [E999].`,
              "",
              "## Conclusion",
              "",
              `The line was built within a few years [${ids[0]}, ${ids[1]}].`,
              "",
              "## References",
              "",
              "1. A list the model wrote",
            ].join("\n"),
          },
        };
      }),
    ]);
    const events: DossierEvent[] = [];
    // No mode given: the deep-research report is what `research --strategy smtl` writes.
    const result = await kit.dossier.research(QUESTION, {
      strategy: "smtl",
      onEvent: (e) => events.push(e),
    }).done;
    const kinds = kit.model.calls.map(kindOf);
    expect(kinds).toEqual(["subtasks", "subtask", "subtask", "subtask", "reader", "subtask", "report"]);
    // No tool call before the subtask list.
    const listEnd = events.find((e) => e.type === "llm-end")!;
    for (const t of ofType(events, "tool-start")) expect(t.seq).toBeGreaterThan(listEnd.seq);
    // Both searches of the first subtask were under way at once.
    expect(ofType(events, "step-end").map((e) => e.toolCalls)).toEqual([2, 1]);
    // The trajectory: replayable actions with the observations each reply saw.
    const steps = ofType(events, "trajectory-step");
    expect(steps.map((s) => s.action)).toEqual([
      "subtask-list",
      "search",
      "subtask-answer",
      "search",
      "subtask-answer",
    ]);
    expect((steps[2]!.state as { observations: string[] }).observations.length).toBe(6);
    expect(result.status).toBe("completed");
    const report = result.report!;
    expect(report.title).toBe("The northern line's stations");
    expect(report.outline.sections.map((s) => s.title)).toEqual([
      "Introduction",
      "Openings",
      "Rebuilding",
      "Conclusion",
    ]);
    expect(report.body).not.toContain("A list the model wrote");
    expect(report.body).not.toContain("E999");
    expect(report.checks.citations.byReason).toEqual({ "unknown-evidence": 1 });
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(1);
    expect(Math.max(...numbers)).toBe(report.references.length);
    expect(report.markdown.match(/\n## References\n/g)).toHaveLength(1);
  });

  it("a subtask answer citing evidence never retrieved is refused and counted", async () => {
    kit = await startSmtlKit([
      on("subtasks", {
        json: { analysis: "one strand", subtasks: [{ title: "Openings", goal: "when they opened" }] },
      }),
      on("subtask", { json: { analysis: "search", plan: ["search"], calls: [search("station 1 opening")] } }),
      on("subtask", {
        json: { analysis: "done", subtaskAnswer: { text: "In 1901 [E77].", citations: ["E77"] } },
      }),
      on("subtask", (call) => {
        const [a] = newest(call);
        return { json: { analysis: "done", subtaskAnswer: { text: `In 1901 [${a}].`, citations: [a] } } };
      }),
      on("report", (call) => ({
        json: { report: `## Openings\n\nThe first station opened in 1901 [${shownIds(call.lastUser)[0]}].` },
      })),
    ]);
    const events: DossierEvent[] = [];
    const result = await kit.dossier.research(QUESTION, {
      strategy: "smtl",
      strategyOptions: { mode: "research" },
      onEvent: (e) => events.push(e),
    }).done;
    const warnings = ofType(events, "warning").filter((w) => w.code === "MALFORMED_ACTION");
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/never retrieved: E77/)]);
    expect(kit.model.calls[3]!.lastUser).toMatch(/Your last reply was rejected/);
    expect(result.status).toBe("completed");
    expect(citedNumbers(result.report!.body)).toEqual([1]);
  });

  it("a subtask answered before any tool call is refused; spending the error budget so fails the run with NO_RESEARCH", async () => {
    const early = {
      json: { analysis: "known", subtaskAnswer: { text: "In 1901 [E1].", citations: ["E1"] } },
    };
    kit = await startSmtlKit([
      on("subtasks", {
        json: { analysis: "one strand", subtasks: [{ title: "Openings", goal: "when they opened" }] },
      }),
      on("subtask", early),
      on("subtask", early),
    ]);
    const result = await kit.dossier.research(QUESTION, {
      strategy: "smtl",
      strategyOptions: { errorBudget: 2 },
    }).done;
    expect(kit.queries).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringMatching(/stopped \(error-budget\) before its first tool call/),
    });
  });

  it("is the strategy's default mode; the short answer is mode answer (or its earlier name, search)", () => {
    expect(smtlOptionsSchema.parse({}).mode).toBe("research");
    expect(smtlOptionsSchema.parse({ mode: "answer" }).mode).toBe("answer");
    expect(smtlOptionsSchema.parse({ mode: "search" }).mode).toBe("search");
    expect(() => smtlOptionsSchema.parse({ mode: "essay" })).toThrow();
  });
});
