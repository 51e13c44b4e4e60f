/**
 * Prompts of smtl's deep-research mode in the native tag protocol (seed: SMTL App. D.1 for the
 * work — subtasks, an analysis before every action, fine-grained steps, parallel calls, an
 * intermediate answer per subtask, the report — spoken in the deep-search tags: `<plan>`,
 * `<summary>`, `<tool_call>`, `<answer>`; structure only, the wording is ours). The `<answer>`
 * is the whole report.
 */

import { languageName } from "../../kit/language.ts";
import { resetFrom, type TagPromptOptions, tagSystemPrompt } from "./native-prompts.ts";

/** The opening line of the system prompt (unique, so a trace can tell it apart). */
export const NATIVE_RESEARCH_MARKER =
  "You are a research agent that answers an open question with a cited report, searching in parallel and thinking briefly.";

/** The system prompt of the native deep-research mode. */
export function nativeResearchSystem(options: TagPromptOptions): string {
  return tagSystemPrompt({
    marker: NATIVE_RESEARCH_MARKER,
    currentDate: options.currentDate,
    work: [
      "Work in steps. Each reply opens with your analysis (what is known, what is missing, what to do next), followed by one kind of block, and ends with that block's closing tag:",
      "- <plan>…</plan>: in your first reply only. The question broken down into clear, independent subtasks, each with its fine-grained steps and what settles it, written as '## Subtask 1: …', '- Step 1.1: …', '- Done when: …'.",
      "- <summary>…</summary>: when you are asked for it. For every subtask its status (Answered, In Progress or Blocked) and, once answered, its definitive intermediate answer with the evidence ids it rests on; then the steps to run next in parallel.",
      "- <tool_call>…</tool_call>: 1-5 blocks per reply (never more than 10), each holding one JSON object with the tool's name and arguments. They run at the same time: work on the current subtask, search, then read the promising pages to verify and extract details.",
      `- <answer>…</answer>: only after the last subtask is answered. The whole report in Markdown, in ${languageName(options.language)}: a title line '# …', an introduction, sections as '## …' headings (by subtask where that fits), a conclusion. Every key statement, figure and quote cites the evidence ids it rests on right after it, e.g. [E4]. Write no reference list: it is added from the citations.`,
    ],
    tools: options.tools,
    rules:
      "Rules: take the subtasks one at a time; never repeat a call; when a query finds nothing, relax it or take another step; prefer official and primary sources; never answer before the evidence settles every subtask.",
    maxSteps: options.maxSteps,
  });
}

/** The first user message. */
export function nativeResearchTask(question: string): string {
  return [
    "Research question:",
    "<question>",
    question,
    "</question>",
    "Start with your plan: the subtasks.",
  ].join("\n");
}

/** The message a context reset leaves after the task: the last summary, if any. */
export function nativeResearchReset(question: string, summary: string | null): string {
  return resetFrom(
    nativeResearchTask(question).replace(/\nStart with your plan: the subtasks\.$/, ""),
    summary,
    "The evidence ids in it stay citable. Reflect on it, make a new plan if you need one, and go on.",
  );
}

/** The request for the report when the research has ended (step cap, error budget, budget). */
export const NATIVE_REPORT_REQUEST =
  "The research has ended. From the conversation above, write the whole report within <answer> and </answer>, citing the evidence ids it rests on, and say plainly which subtasks remain open.";
