/**
 * Answers of the scripted research model for the smtl strategy (and the deep-search answer
 * judge): a plan of two goals with three parallel searches, one step that reads the first
 * result while searching once more, then an answer naming the page's topic that cites the
 * excerpts read and verifies both goals. Refinements and the answer from evidence are
 * answered too, for runs that reach them.
 */

import { MODE_LINES } from "../../src/strategies/smtl/prompts.ts";
import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** Marker lines of the smtl calls' system prompts (each names what the call must do). */
export const SMTL_MARKERS = {
  plan: MODE_LINES.plan,
  step: MODE_LINES.step,
  refine: MODE_LINES.refine,
  final: "evidence gathered by an agent whose search has ended",
  judge: "You grade answers to hard search questions against a reference answer.",
} as const;

const ids = (s: string) => [...new Set([...s.matchAll(/\[(E\d+)\]/g)].map((m) => m[1]!))];

/** The plan: two goals, three searches at once (queries 1, 4 and 7 reach pages 1–11). */
export function smtlPlanAnswer(): Reply {
  return json({
    thought: "Find the entity, then confirm the fact on its page.",
    goals: [
      {
        goal: "Identify the topic the question describes",
        successCriterion: "a page names the topic",
        paths: ["search the described facts", "search the survey figures"],
      },
      {
        goal: "Confirm the growth figure on the topic's own page",
        successCriterion: "a read page states the figure",
        paths: ["read the best result", "read the second result"],
      },
    ],
    calls: [
      { tool: "web_search", query: "topic 1 measured growth" },
      { tool: "web_search", query: "topic 4 annual survey" },
      { tool: "web_search", query: "topic 7 adoption" },
    ],
  });
}

/**
 * A step: while no page was read, read the first result and search once more; after that,
 * answer with the read page's topic, citing its excerpts for both goals.
 */
export function smtlStepAnswer(user: string): Reply {
  const urls = [...user.matchAll(/\] Page \d+ — (https?:\/\/\S+)/g)].map((m) => m[1]!);
  const read = /- crawl_page (\S+) for [\s\S]*?(?=\n- |\n<\/observations>)/.exec(user);
  if (!read) {
    return json({
      thought: "Read the best result and widen the search.",
      calls: [
        { tool: "crawl_page", url: urls[0], goal: "the topic and its growth figure" },
        { tool: "web_search", query: "topic 2 growth figure" },
      ],
    });
  }
  const found = ids(read[0]);
  const topic = /\/page\/(\d+)/.exec(read[1]!)?.[1] ?? "1";
  return json({
    thought: "Both goals are verified by the page read.",
    calls: [],
    answer: {
      text: `Topic ${topic}`,
      citations: found.slice(0, 2),
      verification: [
        { goal: "G1", evidence: found.slice(0, 1) },
        { goal: "G2", evidence: found.slice(0, 2) },
      ],
    },
  });
}

/** A refinement: every goal in progress, its analysis citing the first evidence seen. */
export function smtlRefineAnswer(user: string): Reply {
  const first = ids(user)[0] ?? "E1";
  return json({
    recap: "Searching; the topic is not confirmed yet.",
    goals: [
      { id: "G1", status: "in-progress", analysis: `candidates found [${first}]` },
      { id: "G2", status: "in-progress", analysis: "no page read yet" },
    ],
    nextPaths: ["read the best result"],
  });
}

/** The answer from evidence: the topic of the first excerpt shown. */
export function smtlFinalAnswer(user: string): Reply {
  const [first] = ids(user);
  const topic = /Topic (\d+)/.exec(user)?.[1] ?? "1";
  return json({ answer: `Topic ${topic}`, citations: first ? [first] : [] });
}

/** The answer judge: correct when the response contains the reference answer. */
export function answerJudgeAnswer(user: string): Reply {
  const reference = /<reference_answer>\n([\s\S]*?)\n<\/reference_answer>/.exec(user)?.[1]?.trim() ?? "?";
  const response = /<response>\n([\s\S]*?)\n<\/response>/.exec(user)?.[1] ?? "";
  return json({
    rationale: "compared the final answer with the reference",
    judgement: response.includes(reference) ? "correct" : "incorrect",
  });
}
