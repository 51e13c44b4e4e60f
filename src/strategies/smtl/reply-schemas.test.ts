/**
 * The reply formats of smtl's JSON protocol (protocol.ts, research-protocol.ts): what a model
 * reads of each reply's schema (the outline every call without a native schema mode sends), the
 * bounds a reply is held to, the ids as models write them, and the rules an answer must pass —
 * it cites only evidence the run retrieved, and every goal is verified by it.
 */

import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { jsonInstruction } from "../../llm/structured.ts";
import { subtaskRefineSchema } from "./json-research-refine.ts";
import {
  callNames,
  callSchemaFor,
  describeCall,
  finalReplySchema,
  planReplySchema,
  refineReplySchema,
  stepReplySchema,
  toAction,
} from "./protocol.ts";
import { researchReportSchema, subtaskListSchema, subtaskStepSchema } from "./research-protocol.ts";

const ALL = ["web_search", "read_page", "local_search", "academic_search"] as const;
/** The schema's outline as the instruction shows it (after its first line). */
const outline = (schema: z.ZodType) => jsonInstruction(schema).split("\n").slice(1).join("\n");
const ok = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;
const draft = (n: number) => ({
  goal: `goal ${n}`,
  successCriterion: `criterion ${n}`,
  paths: [`path ${n}`],
});

describe("what a model reads of the answer mode's reply schemas", () => {
  it("the plan (one tool: its calls are that tool's)", () => {
    expect(outline(planReplySchema(["web_search"]))).toBe(
      [
        "{",
        "  thought: string // how the question decomposes",
        "  // 1-5 goals",
        "  goals: Array<{",
        "    goal: string // a verifiable information goal",
        "    successCriterion: string // what observation would show the goal is met",
        "    paths: string[] // 1-5 ordered fallback paths: how to reach the goal, the next one tried if the previous fails",
        "  }>",
        "  // tool calls to run at once, each for a distinct goal or path (1-5, never more than 10)",
        "  calls: Array<{",
        '    tool: "web_search"',
        "    query: string // search query",
        "  }>",
        "}",
      ].join("\n"),
    );
  });

  it("a step", () => {
    expect(outline(stepReplySchema(["web_search", "read_page"]))).toBe(
      [
        "{",
        "  thought: string // what the last observations showed and why these calls come next",
        "  // tool calls to run at once, each for a distinct goal or path (1-5, never more than 10)",
        "  calls?: Array<",
        "    | {",
        '      tool: "web_search"',
        "      query: string // search query",
        "    }",
        "    | {",
        '      tool: "crawl_page"',
        "      url: string // a URL seen in the results",
        "      goal: string // the information to extract from the page",
        "    }",
        "  >",
        "  // only when every goal is verified; then no calls",
        "  answer?: | {",
        "      text: string // the concise final answer, in the question's language; max 1500 characters",
        "      citations: string[] // evidence ids supporting the answer, e.g. E4",
        "      // for every goal of the plan, the evidence that verifies it",
        "      verification: Array<{",
        "        goal: string // goal id, e.g. G1",
        "        evidence: string[] // evidence ids that verify this goal; min 1 items",
        "      }>",
        "    }",
        "    | null",
        "}",
      ].join("\n"),
    );
  });

  it("a refinement and the answer from evidence", () => {
    expect(outline(refineReplySchema)).toBe(
      [
        "{",
        "  recap: string // short recap of the plan and the progress so far",
        "  // the status of every goal",
        "  goals: Array<{",
        "    id: string // goal id, e.g. G1",
        '    status: "completed" | "in-progress" | "blocked"',
        "    analysis: string // paths tried and what they established, citing evidence ids, e.g. [E4]",
        "  }>",
        "  // goals to add (the plan keeps at most 5)",
        "  newGoals?: Array<{",
        "    goal: string // a verifiable information goal",
        "    successCriterion: string // what observation would show the goal is met",
        "    paths: string[] // 1-5 ordered fallback paths: how to reach the goal, the next one tried if the previous fails",
        "  }>",
        "  nextPaths: string[] // the sub-paths to run next, in parallel; 1\u201310 items",
        "}",
      ].join("\n"),
    );
    expect(outline(finalReplySchema)).toBe(
      [
        "{",
        "  answer: string // the best concise answer the evidence supports; max 1500 characters",
        "  citations: string[] // evidence ids supporting it",
        "}",
      ].join("\n"),
    );
  });
});

describe("what a model reads of the research mode's reply schemas", () => {
  it("the subtask list, a step over every tool, and the report", () => {
    expect(outline(subtaskListSchema)).toBe(
      [
        "{",
        "  analysis: string // how the question breaks down",
        "  // the clear, independent subtasks that together answer the question; 1\u20138 items",
        "  subtasks: Array<{",
        "    title: string // short name of the subtask",
        "    goal: string // what it must establish, clear and independent of the others",
        "  }>",
        "}",
      ].join("\n"),
    );
    expect(outline(subtaskStepSchema(ALL))).toBe(
      [
        "{",
        "  analysis: string // reasoning, arguments and next steps, before any plan or call",
        "  plan?: string[] // the subtask's fine-grained steps: give them when the subtask starts, or to revise them; max 10 items",
        "  // 1-5 tool calls to run at once for this subtask; none when giving the subtask answer",
        "  calls?: Array<",
        "    | {",
        '      tool: "web_search"',
        "      query: string // search query",
        "    }",
        "    | {",
        '      tool: "crawl_page"',
        "      url: string // a URL seen in the results",
        "      goal: string // the information to extract from the page",
        "    }",
        "    | {",
        '      tool: "local_search"',
        "      query: string // query over the user's documents",
        "    }",
        "    | {",
        '      tool: "academic_search"',
        "      query: string // query for scholarly papers",
        "    }",
        "  >",
        "  // the subtask's answer once it is answerable; then no calls",
        "  subtaskAnswer?: | {",
        "      text: string // the intermediate, definitive answer of the subtask, citing evidence ids like [E4]",
        "      citations: string[] // evidence ids supporting it, e.g. E4",
        "    }",
        "    | null",
        "}",
      ].join("\n"),
    );
    expect(outline(researchReportSchema)).toBe(
      [
        "{",
        "  report: string // the report in Markdown: an introduction, sections as ## headings (organised by subtask where that fits), a conclusion; every key statement cites evidence ids like [E4]; no reference list",
        "}",
      ].join("\n"),
    );
  });
});

describe("the calls a reply may hold", () => {
  it("every tool the run allows, by the model's names, and nothing else", () => {
    const schema = callSchemaFor(ALL);
    const calls = [
      { tool: "web_search", query: "station 3" },
      { tool: "crawl_page", url: "https://x.example/p", goal: "architect" },
      { tool: "local_search", query: "my notes" },
      { tool: "academic_search", query: "station design" },
    ];
    expect(calls.map((c) => schema.parse(c))).toEqual(calls);
    expect(ok(schema, { tool: "read_page", url: "https://x.example/p", goal: "architect" })).toBe(false);
    expect(callNames(ALL)).toEqual(["web_search", "crawl_page", "local_search", "academic_search"]);
    const one = callSchemaFor(["read_page"]);
    expect(one.parse(calls[1])).toEqual(calls[1]);
    expect(ok(one, calls[0])).toBe(false);
  });

  it("holds a query of two characters or more, a page goal of three or more", () => {
    const schema = callSchemaFor(ALL);
    expect(ok(schema, { tool: "web_search", query: "ab" })).toBe(true);
    expect(ok(schema, { tool: "local_search", query: "a" })).toBe(false);
    expect(ok(schema, { tool: "academic_search", query: "a" })).toBe(false);
    expect(ok(schema, { tool: "crawl_page", url: "https://x.example/p", goal: "ab" })).toBe(false);
  });

  it("becomes a research action and reads in a trace by the model's names", () => {
    const crawl = { tool: "crawl_page" as const, url: "https://x.example/p", goal: "architect" };
    expect(toAction(crawl)).toEqual({ tool: "read_page", url: "https://x.example/p", goal: "architect" });
    expect(toAction({ tool: "web_search", query: "q" })).toEqual({ tool: "web_search", query: "q" });
    expect(describeCall(crawl)).toBe('crawl_page https://x.example/p for "architect"');
    expect(describeCall({ tool: "academic_search", query: "q" })).toBe('academic_search "q"');
  });
});

describe("the bounds of the answer mode's replies", () => {
  const call = { tool: "web_search", query: "station 3" };

  it("a plan: 1 to 5 goals of 1 to 5 paths, and at least one call", () => {
    const schema = planReplySchema(["web_search"]);
    const reply = (goals: unknown[], calls = [call]) => ({ thought: "t", goals, calls });
    expect(ok(schema, reply([draft(1)]))).toBe(true);
    expect(ok(schema, reply([1, 2, 3, 4, 5].map(draft)))).toBe(true);
    expect(ok(schema, reply([1, 2, 3, 4, 5, 6].map(draft)))).toBe(false);
    expect(ok(schema, reply([]))).toBe(false);
    expect(ok(schema, reply([draft(1)], []))).toBe(false);
    const paths = (n: number) =>
      reply([{ ...draft(1), paths: Array.from({ length: n }, (_, i) => `path ${i}`) }]);
    expect(ok(schema, paths(5))).toBe(true);
    expect(ok(schema, paths(6))).toBe(false);
    expect(ok(schema, paths(0))).toBe(false);
    expect(ok(schema, reply([{ ...draft(1), goal: "ab" }]))).toBe(false);
    expect(ok(schema, reply([{ ...draft(1), successCriterion: "ab" }]))).toBe(false);
    expect(ok(schema, reply([{ ...draft(1), paths: ["ab"] }]))).toBe(false);
  });

  it("a step: no calls by default; an answer of 1 to 1,500 characters citing evidence, each goal verified by some", () => {
    const schema = stepReplySchema(["web_search"]);
    expect(schema.parse({ thought: "t" })).toEqual({ thought: "t", calls: [] });
    const answer = (a: Record<string, unknown>) => ({
      thought: "t",
      answer: {
        text: "Mara Vell",
        citations: ["E1"],
        verification: [{ goal: "G1", evidence: ["E1"] }],
        ...a,
      },
    });
    expect(ok(schema, answer({}))).toBe(true);
    expect(ok(schema, answer({ text: "x".repeat(1500) }))).toBe(true);
    expect(ok(schema, answer({ text: "x".repeat(1501) }))).toBe(false);
    expect(ok(schema, answer({ text: "" }))).toBe(false);
    expect(ok(schema, answer({ citations: [] }))).toBe(false);
    expect(ok(schema, answer({ citations: ["E1", "E2"] }))).toBe(true);
    expect(ok(schema, answer({ verification: [{ goal: "G1", evidence: [] }] }))).toBe(false);
    expect(ok(schema, answer({ verification: [{ goal: "G1", evidence: ["E1", "E2"] }] }))).toBe(true);
    expect(ok(schema, { thought: "t", answer: null })).toBe(true);
  });

  it("a refinement: 1 to 10 next paths, up to 5 new goals, none by default", () => {
    const reply = (nextPaths: string[], extra: Record<string, unknown> = {}) => ({
      recap: "r",
      goals: [{ id: "G1", status: "blocked", analysis: "a" }],
      nextPaths,
      ...extra,
    });
    expect(refineReplySchema.parse(reply(["p"])).newGoals).toEqual([]);
    expect(ok(refineReplySchema, reply([]))).toBe(false);
    expect(ok(refineReplySchema, reply(Array(10).fill("p")))).toBe(true);
    expect(ok(refineReplySchema, reply(Array(11).fill("p")))).toBe(false);
    expect(ok(refineReplySchema, reply(["p"], { newGoals: [1, 2, 3, 4, 5].map(draft) }))).toBe(true);
    expect(ok(refineReplySchema, reply(["p"], { newGoals: [1, 2, 3, 4, 5, 6].map(draft) }))).toBe(false);
  });

  it("the answer from evidence: 1 to 1,500 characters, citations possibly none", () => {
    expect(ok(finalReplySchema, { answer: "x".repeat(1500), citations: [] })).toBe(true);
    expect(ok(finalReplySchema, { answer: "x".repeat(1501), citations: [] })).toBe(false);
    expect(ok(finalReplySchema, { answer: "", citations: ["E1"] })).toBe(false);
    expect(ok(finalReplySchema, { answer: "x", citations: ["E1", "E2"] })).toBe(true);
  });
});

describe("the bounds of the research mode's replies", () => {
  it("a subtask list: 1 to 8 subtasks, a title of 3 characters or more, a goal of 5 or more", () => {
    const list = (n: number, t: Record<string, string> = {}) => ({
      analysis: "a",
      subtasks: Array.from({ length: n }, () => ({ title: "Openings", goal: "when each opened", ...t })),
    });
    expect(ok(subtaskListSchema, list(8))).toBe(true);
    expect(ok(subtaskListSchema, list(9))).toBe(false);
    expect(ok(subtaskListSchema, list(0))).toBe(false);
    expect(ok(subtaskListSchema, list(1, { title: "Abc", goal: "abcde" }))).toBe(true);
    expect(ok(subtaskListSchema, list(1, { title: "Ab" }))).toBe(false);
    expect(ok(subtaskListSchema, list(1, { goal: "abcd" }))).toBe(false);
  });

  it("a step: an analysis, no plan or calls by default, at most 10 plan steps and 10 calls", () => {
    const schema = subtaskStepSchema(["web_search"]);
    expect(schema.parse({ analysis: "a" })).toEqual({ analysis: "a", plan: [], calls: [] });
    expect(ok(schema, { analysis: "" })).toBe(false);
    expect(ok(schema, { analysis: "a", plan: Array(10).fill("step") })).toBe(true);
    expect(ok(schema, { analysis: "a", plan: Array(11).fill("step") })).toBe(false);
    expect(ok(schema, { analysis: "a", plan: ["ab"] })).toBe(false);
    const call = { tool: "web_search", query: "q q" };
    expect(ok(schema, { analysis: "a", calls: Array(10).fill(call) })).toBe(true);
    expect(ok(schema, { analysis: "a", calls: Array(11).fill(call) })).toBe(false);
    expect(ok(schema, { analysis: "a", subtaskAnswer: { text: "", citations: ["E1"] } })).toBe(false);
    expect(ok(schema, { analysis: "a", subtaskAnswer: { text: "x", citations: [] } })).toBe(false);
    expect(ok(schema, { analysis: "a", subtaskAnswer: { text: "x", citations: ["E1", "E2"] } })).toBe(true);
  });

  it("the report is not empty", () => {
    expect(ok(researchReportSchema, { report: "" })).toBe(false);
    expect(ok(researchReportSchema, { report: "# R" })).toBe(true);
  });

  it("a refinement of the subtasks: a status and 1 to 8 pending subtasks, each a title of 3 characters or more and a goal of 5 or more", () => {
    expect(outline(subtaskRefineSchema)).toBe(
      [
        "{",
        "  status: string // where the research stands: what each subtask established, what is missing",
        "  // the subtasks still to do, in the order to take them: keep, rewrite, drop or add; 1\u20138 items",
        "  pending: Array<{",
        "    title: string // short name of the subtask",
        "    goal: string // what it must establish",
        "  }>",
        "}",
      ].join("\n"),
    );
    const reply = (n: number, t: Record<string, string> = {}, status = "S1 done") => ({
      status,
      pending: Array.from({ length: n }, () => ({ title: "Abc", goal: "abcde", ...t })),
    });
    expect(ok(subtaskRefineSchema, reply(1))).toBe(true);
    expect(ok(subtaskRefineSchema, reply(8))).toBe(true);
    expect(ok(subtaskRefineSchema, reply(9))).toBe(false);
    expect(ok(subtaskRefineSchema, reply(0))).toBe(false);
    expect(ok(subtaskRefineSchema, reply(1, {}, ""))).toBe(false);
    expect(ok(subtaskRefineSchema, reply(1, { title: "Ab" }))).toBe(false);
    expect(ok(subtaskRefineSchema, reply(1, { goal: "abcd" }))).toBe(false);
  });
});
