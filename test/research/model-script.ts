/**
 * A scripted research model for end-to-end tests and benchmarks: an OpenAI-compatible handler
 * that recognises each agent by its instructions and answers the way a competent model would —
 * plans, reads the first search result, writes sub-reports, outlines and sections that cite
 * the evidence ids it was shown. Every call is counted per role and its prompts are kept.
 *
 * Strict by declaration: a test names the calls it expects per role (see
 * call-expectations.ts); an undeclared or surplus call is recorded as unexpected, a role
 * called less than declared as unused, and the research world fails the test on either after
 * it ends. A call no role recognises is always unexpected and answered with an error.
 */

import { FOLLOW_UP_MARKER } from "../../src/runtime/ask-about-strategy.ts";
import type { RecordedRequest, Reply } from "../fake-openai/types.ts";
import { type CallExpectations, isBeyond, showExpectation, unusedRoles } from "./call-expectations.ts";
import { CLAIM_MARKERS, claimJudgeAnswer, claimRewriteAnswer } from "./claim-answers.ts";
import { followUpAnswer } from "./follow-up-answers.ts";
import {
  criticAnswer,
  ephemeralAnswer,
  type GraphScriptOptions,
  initPlanAnswer,
  innerStepAnswer,
  plannerAnswer,
  revisionAnswer,
  routerAnswer,
} from "./graph-answers.ts";
import { DEFECTS, malformJson } from "./malform-json.ts";
import { MAMS_MARKERS, mamsReportAnswer, mamsSearchAnswer, mamsStateAnswer } from "./mams-answers.ts";
import {
  citedIds,
  coherenceAnswer,
  type MinddrScriptOptions,
  minddrPlannerAnswer,
  outlineAnswer,
  readerAnswer,
  searchStepAnswer,
  sectionAnswer,
  subReportAnswer,
} from "./minddr-answers.ts";
import { systemText, userText } from "./replies.ts";
import {
  answerJudgeAnswer,
  SMTL_MARKERS,
  smtlFinalAnswer,
  smtlPlanAnswer,
  smtlRefineAnswer,
  smtlStepAnswer,
} from "./smtl-answers.ts";
import { PIPELINE_JUDGE, pipelineJudgeAnswer } from "./train-answers.ts";
import {
  type WarpScriptOptions,
  warpDeepenAnswer,
  warpInitAnswer,
  warpSearchAnswer,
  warpWriteAnswer,
} from "./warp-answers.ts";

/** Roles the script recognises. */
export type ScriptRole =
  | "planner"
  | "search-step"
  | "sub-report"
  | "reader"
  | "outline"
  | "section"
  | "coherence"
  | "router"
  | "init-plan"
  | "graph-planner"
  | "critic"
  | "revision"
  | "ephemeral-rubric"
  | "inner-step"
  | "consolidate"
  | "smtl-plan"
  | "smtl-step"
  | "smtl-refine"
  | "smtl-final"
  | "answer-judge"
  | "warp-search"
  | "warp-init"
  | "warp-write"
  | "warp-deepen"
  | "mams-search"
  | "mams-state"
  | "mams-report"
  | "pipeline-judge"
  | "claim-judge"
  | "claim-rewrite"
  | "follow-up";

/** Options of the script. */
export interface ModelScriptOptions extends GraphScriptOptions, MinddrScriptOptions, WarpScriptOptions {
  /** Calls expected per role; when set, every other role is expected never to be called. */
  expectCalls?: CallExpectations<ScriptRole>;
  /** Latency of every answer, in ms (applied inside the handler). Default 0. */
  latencyMs?: number;
  /** Chaos: this share (0–1) of JSON answers is cut short, chosen by a seeded generator. */
  truncateJson?: { share: number; seed?: number };
  /**
   * Chaos: this share (0–1) of JSON answers is written as a local model might write it — a
   * trailing comma, single quotes, Python literals, a raw newline in a string, some in a code
   * fence (see malform-json.ts) — chosen by a seeded generator.
   */
  malformJson?: { share: number; seed?: number };
  /** Called before each answer (e.g. to advance a test clock). */
  onCall?: (role: ScriptRole) => void;
  /** Overrides the answer for a role (return undefined to use the default). */
  override?: (role: ScriptRole, request: ChatBody) => Reply | undefined;
}

/** The chat-completions body the provider sends. */
export interface ChatBody {
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
}

/** What the script saw. */
export interface ModelScript {
  handler: (request: RecordedRequest) => Promise<Reply>;
  counts: Record<ScriptRole, number>;
  /** Highest number of answers in flight at once, per role. */
  maxInFlight: Record<ScriptRole, number>;
  /** System prompts seen, per role. */
  systems: Record<ScriptRole, string[]>;
  /** User-side prompt text seen, per role. */
  prompts: Record<ScriptRole, string[]>;
  /** Unrecognised calls and calls beyond the declared expectations. */
  unexpected: string[];
  /** Declares (replaces) the calls expected per role for the rest of the test. */
  expectCalls(expectations: CallExpectations<ScriptRole>): void;
  /** Everything wrong with the calls so far: unexpected calls, then unused roles. */
  violations(): string[];
}

const ROLE_MARKERS: [ScriptRole, string][] = [
  ["router", "router of a research system"],
  ["init-plan", "first research plan of a team"],
  ["graph-planner", "research plan of a team as a directed acyclic graph"],
  ["critic", "critic of a research team"],
  ["revision", "Revise the rejected research actions"],
  ["ephemeral-rubric", "check the research state of a team"],
  ["inner-step", "inner search agent of a research plan"],
  ["consolidate", "consolidate research evidence without searching further"],
  ["planner", "planning agent of a research team"],
  ["search-step", "search agent working on one subtask"],
  ["sub-report", "findings of one research subtask"],
  ["reader", "read a single web page"],
  ["outline", "Design the outline"],
  ["section", "writing one section of a long research report"],
  ["coherence", "editor of a research report"],
  ["smtl-plan", SMTL_MARKERS.plan],
  ["smtl-step", SMTL_MARKERS.step],
  ["smtl-refine", SMTL_MARKERS.refine],
  ["smtl-final", SMTL_MARKERS.final],
  ["answer-judge", SMTL_MARKERS.judge],
  ["warp-search", "You choose search keywords for a report being drafted"],
  ["warp-init", "You lay out the top-level sections of a research report"],
  ["warp-write", "You are drafting one section of a research report"],
  ["warp-deepen", "You decide how to deepen a research report draft"],
  ["mams-search", MAMS_MARKERS.search],
  ["mams-state", MAMS_MARKERS.state],
  ["mams-report", MAMS_MARKERS.report],
  ["pipeline-judge", PIPELINE_JUDGE],
  ["claim-judge", CLAIM_MARKERS.judge],
  ["claim-rewrite", CLAIM_MARKERS.rewrite],
  ["follow-up", FOLLOW_UP_MARKER],
];

/** A small seeded generator (mulberry32), so chaos runs are reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Creates the script. */
export function createModelScript(options: ModelScriptOptions = {}): ModelScript {
  const perRole = <T>(make: () => T) =>
    Object.fromEntries(ROLE_MARKERS.map(([r]) => [r, make()])) as Record<ScriptRole, T>;
  const counts = perRole(() => 0);
  const maxInFlight = perRole(() => 0);
  const inFlight = perRole(() => 0);
  const systems = perRole(() => [] as string[]);
  const prompts = perRole(() => [] as string[]);
  const unexpected: string[] = [];
  let expectations: CallExpectations<ScriptRole> | null = options.expectCalls ?? null;
  const chaos = options.truncateJson ? seeded(options.truncateJson.seed ?? 7) : null;
  const sloppy = options.malformJson ? seeded(options.malformJson.seed ?? 7) : null;

  const answer = (role: ScriptRole, user: string, body: ChatBody): Reply => {
    const custom = options.override?.(role, body);
    if (custom) return custom;
    switch (role) {
      case "router":
        return routerAnswer(user);
      case "init-plan":
        return initPlanAnswer(user);
      case "graph-planner":
        return plannerAnswer(user, counts["graph-planner"], options);
      case "critic":
        return criticAnswer(user, options);
      case "revision":
        return revisionAnswer(user);
      case "ephemeral-rubric":
        return ephemeralAnswer(counts["ephemeral-rubric"], options);
      case "inner-step":
        return innerStepAnswer(user, options, counts["inner-step"]);
      case "consolidate": {
        const found = citedIds(user).slice(0, 3);
        return {
          kind: "text",
          text: `CONSOLIDATION-NOTE the sources agree on the main figures ${found.map((id) => `[${id}]`).join(" ")}.`,
        };
      }
      case "planner":
        return minddrPlannerAnswer(user, options);
      case "search-step":
        return searchStepAnswer(user, options);
      case "reader":
        return readerAnswer(user, options);
      case "sub-report":
        return subReportAnswer(user);
      case "outline":
        return outlineAnswer(user);
      case "section":
        return sectionAnswer(user, options);
      case "coherence":
        return coherenceAnswer(user);
      case "smtl-plan":
        return smtlPlanAnswer();
      case "smtl-step":
        return smtlStepAnswer(user);
      case "smtl-refine":
        return smtlRefineAnswer(user);
      case "smtl-final":
        return smtlFinalAnswer(user);
      case "answer-judge":
        return answerJudgeAnswer(user);
      case "warp-search":
        return warpSearchAnswer(user);
      case "warp-init":
        return warpInitAnswer();
      case "warp-write":
        return warpWriteAnswer(user);
      case "warp-deepen":
        return warpDeepenAnswer(user, counts["warp-deepen"], options);
      case "mams-search":
        return mamsSearchAnswer(user, body);
      case "mams-state":
        return mamsStateAnswer(user);
      case "mams-report":
        return mamsReportAnswer(user);
      case "pipeline-judge":
        return pipelineJudgeAnswer(user);
      case "claim-judge":
        return claimJudgeAnswer(user);
      case "claim-rewrite":
        return claimRewriteAnswer(user);
      case "follow-up":
        return followUpAnswer(user);
    }
  };

  const disturb = (reply: Reply): Reply => {
    if (sloppy && reply.kind === "text" && reply.text.trimStart().startsWith("{")) {
      if (sloppy() < options.malformJson!.share) {
        const defect = DEFECTS[Math.floor(sloppy() * DEFECTS.length)]!;
        return { ...reply, text: malformJson(reply.text, defect, sloppy() < 0.3) };
      }
    }
    if (!chaos || reply.kind !== "text" || !reply.text.trimStart().startsWith("{")) return reply;
    if (chaos() >= options.truncateJson!.share) return reply;
    const cut = Math.floor(reply.text.length * (0.3 + 0.6 * chaos()));
    return { ...reply, text: reply.text.slice(0, cut) };
  };

  return {
    counts,
    maxInFlight,
    systems,
    prompts,
    unexpected,
    expectCalls(next) {
      expectations = next;
    },
    violations() {
      return [...unexpected.map((u) => `unexpected call: ${u}`), ...unusedRoles(expectations, counts)];
    },
    async handler(request) {
      const body = request.body as ChatBody;
      const system = systemText(body);
      const user = userText(body);
      const role = ROLE_MARKERS.find(([, marker]) => system.includes(marker))?.[0];
      if (!role) {
        unexpected.push(`unrecognised role: ${system.slice(0, 200)}`);
        return {
          kind: "error",
          status: 400,
          body: { error: { message: "unexpected request", type: "invalid_request_error" } },
        };
      }
      counts[role]++;
      if (isBeyond(expectations, role, counts[role]))
        unexpected.push(
          `role ${role}: call ${counts[role]} beyond the expected ${showExpectation(expectations?.[role])}`,
        );
      systems[role].push(system);
      prompts[role].push(user);
      options.onCall?.(role);
      inFlight[role]++;
      maxInFlight[role] = Math.max(maxInFlight[role], inFlight[role]);
      try {
        if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
        return disturb(answer(role, user, body));
      } finally {
        inFlight[role]--;
      }
    },
  };
}
