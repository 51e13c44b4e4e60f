/**
 * Prompts of smtl's deep-research mode (seed: SMTL App. D.1, structure only): one system prompt
 * states the protocol — a subtask list first, then per subtask an analysis before every
 * action, a plan, parallel tool calls until it is answerable and a definitive subtask answer,
 * and finally the report synthesised from the subtask answers — and a closing line names what
 * the current call must do. Retrieved text is fenced as data.
 */

import { languageName } from "../../kit/language.ts";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import { TOOL_LINES as ANSWER_TOOL_LINES, jsonSystemPrompt } from "./prompts.ts";
import type { Subtask } from "./research-protocol.ts";

/** What the current call must do; each line is unique so a trace (or a test) can tell them apart. */
export const RESEARCH_MODE_LINES = {
  subtasks: "Now break the question down into its list of subtasks; no tool call yet.",
  subtask: "Now work on the current subtask: your analysis first, then tool calls, or the subtask's answer.",
  report: "Now write the final report from the subtask answers and the evidence.",
  refine: "Now refine the subtasks: what is established, and the subtasks still to do; no tool call.",
} as const;

/** The tools as the deep-research prompt lists them (searching and reading are worded for pages). */
const TOOL_LINES: Record<ResearchToolName, string> = {
  ...ANSWER_TOOL_LINES,
  web_search: "- web_search {query}: find pages; returns titles, URLs and snippets",
  read_page:
    "- crawl_page {url, goal}: read one page for an information goal; returns verbatim excerpts and a summary",
};

/** The system prompt of every deep-research call. */
export function researchSystem(options: {
  tools: readonly ResearchToolName[];
  currentDate: string;
  language: string;
  maxSteps: number;
  mode: keyof typeof RESEARCH_MODE_LINES;
}): string {
  return jsonSystemPrompt({
    intro:
      "You are a research agent who answers an open research question with a cited report, working through explicit subtasks with parallel tool calls.",
    currentDate: options.currentDate,
    work: [
      "1. First, break the question down into a list of clear, independent subtasks.",
      "2. Then take the subtasks one at a time. In every reply on a subtask, give your analysis first (what you know, what is missing, what to do next). When a subtask starts, add a plan of fine-grained steps.",
      "3. Gather information with 1-5 tool calls per reply; they run at once. Search, then read the promising pages to verify and extract details; search again when new leads appear. Never repeat a call you already made.",
      "4. When the subtask is answerable, give its answer: definitive, citing the evidence ids it rests on. The next subtask follows.",
      `5. After the last subtask, write the report in ${languageName(options.language)}: an introduction, the body organised by subtask where that fits, a conclusion. Every key statement, figure and quote cites its evidence ids right after it, e.g. [E4]. Write no reference list: it is added from the citations.`,
      `You have at most ${options.maxSteps} tool-calling steps in all.`,
    ],
    tools: options.tools.map((t) => TOOL_LINES[t]),
    modeLine: RESEARCH_MODE_LINES[options.mode],
  });
}

/** The subtasks with their state, as the model reads them. */
export function renderSubtasks(subtasks: readonly Subtask[], current: number): string {
  return [
    "<subtasks>",
    ...subtasks.map((s, i) => {
      const state = s.answer !== undefined ? "answered" : i === current ? "current" : "open";
      return [
        `${s.id} [${state}] ${s.title}: ${s.goal}`,
        ...(s.answer ? [`  answer: ${s.answer}`] : []),
      ].join("\n");
    }),
    "</subtasks>",
  ].join("\n");
}

/** The task message: the question and, after a context reset, the subtasks and their answers. */
export function researchTask(question: string, subtasks: readonly Subtask[] | null, current: number): string {
  const lines = ["Question:", "<question>", question, "</question>"];
  if (subtasks) {
    lines.push(
      "",
      "Earlier steps were dropped to free context. Your subtasks, with the answers given so far (their evidence ids stay citable):",
      renderSubtasks(subtasks, current),
    );
  }
  return lines.join("\n");
}

/** The line that follows a subtask's answer: the next subtask, or the report. */
export function nextSubtaskNote(subtasks: readonly Subtask[], current: number): string {
  const next = subtasks[current];
  return next
    ? `Subtask answer recorded. Next: ${next.id} ${next.title} — ${next.goal}`
    : "Every subtask is answered.";
}
