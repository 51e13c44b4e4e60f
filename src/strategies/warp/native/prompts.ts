/**
 * The four role prompts of AgentCPM-Report's protocol, in Dossier's words after the structure
 * of the released prompts (the checkpoints were trained on that structure): an opening role
 * paragraph, the inputs under the released `** … **` headers, notes, the available actions with
 * their exact JSON shapes, and the `<thought>` / `<action>` output format. Each is one user
 * message rebuilt from the state; there is no system message and no chat history.
 *
 * The opening paragraph (everything before `** User Query **`) is the role's standing prose:
 * the `systemPrompt` option replaces it per prompt with a file's text (a checkpoint's own
 * wording), the rest of the prompt unchanged. Additions to the released structure: the query's
 * language named, today's date (temporal reasoning uses the run's date), the section count
 * range of an init-plan, and the forced variant of the extend-plan (no nop).
 */

import { languageName } from "../../../kit/language.ts";
import { NATIVE_SECTIONS, NATIVE_SUBSECTIONS } from "./format.ts";

/** The prompts whose opening prose a `systemPrompt` file may replace. */
export const NATIVE_PROMPTS = ["search", "initPlan", "write", "extendPlan"] as const;
/** One of {@link NATIVE_PROMPTS}. */
export type NativePrompt = (typeof NATIVE_PROMPTS)[number];
/** The user's opening prose per prompt (the text of its `systemPrompt` file). */
export type NativeIntros = Partial<Record<NativePrompt, string>>;

const OUTPUT = (thought: string, action: string) => [
  "** Output Format **",
  `<thought> ${thought} </thought>`,
  `<action> ${action} </action>`,
  "",
  "Answer in exactly this format and nothing else.",
];

const languageLine = (language: string) =>
  `Write in the language of the user's query (${languageName(language)}).`;

/** Inputs of a prompt. */
export interface PromptInputs {
  query: string;
  date: string;
  language: string;
  /** The user's opening prose, in place of Dossier's. */
  intro?: string | undefined;
}

/** The Searcher: 1–5 keywords for the part of the article the Analyst names. */
export function searchPrompt(input: PromptInputs & { outline: string; instruction: string }): string {
  const intro =
    input.intro ??
    [
      'You are the Searcher of a three-agent writing team ("Analyst-Searcher-Writer"): the Analyst names the part',
      "of the article that needs material next, and you choose the search keywords that will retrieve it.",
      "Let the user's query and the article outline so far decide the keywords; give one to five of them.",
      languageLine(input.language),
    ].join("\n");
  return [
    intro,
    "",
    "** User Query **",
    input.query,
    "",
    "** Current Article Outline **",
    input.outline,
    "",
    "** Analyst's Instruction **",
    input.instruction,
    "",
    "## Action Example:",
    '<action> {"name": "search", "keywords": ["keyword-1", "keyword-2"]} </action>',
    "",
    ...OUTPUT("how you chose the keywords", "the action, as one JSON object"),
  ].join("\n");
}

/** The Analyst's first plan: a title and the top-level sections. */
export function initPlanPrompt(input: PromptInputs & { information: string }): string {
  const intro =
    input.intro ??
    [
      "You plan research reports and design their outlines.",
      "Study the user's query and propose a first, simple outline of the article: its title and its top-level",
      "sections only, each with a plan of what it will cover.",
    ].join("\n");
  return [
    intro,
    "",
    "** User Query **",
    input.query,
    "",
    "** Latest Retrieved Information **",
    input.information,
    "",
    "## Notes",
    "1. Cover the whole query in a sound order, and honour every preference or requirement the user states.",
    `2. ${languageLine(input.language)}`,
    `3. Give ${NATIVE_SECTIONS[0]} to ${NATIVE_SECTIONS[1]} sections. Today's date is ${input.date}.`,
    "",
    "** Available Actions **",
    "- init-plan: propose the title and the top-level sections of the outline.",
    "",
    "## Action Format:",
    '<action> {"name": "init-plan", "title": "...", "sections": [{"title": "...", "plan": "..."}, {"title": "...", "plan": "..."}, ...]} </action>',
    "",
    ...OUTPUT("your reasoning, step by step", "the action, as one JSON object"),
  ].join("\n");
}

/** The Writer: the content of the one node the Analyzer assigns. */
export function writePrompt(
  input: PromptInputs & { survey: string; instruction: string; information: string },
): string {
  const intro =
    input.intro ??
    [
      'You are the Writer of a three-agent writing team ("Analyzer-Searcher-Writer"). From the Analyzer\'s',
      "instruction, the article as it stands and the information just retrieved, write the content of the one part",
      "you are assigned, so that the article reads as one coherent piece and every fact is cited.",
      "Make the part substantial: go into breadth and depth, and use examples, tables or code where they help.",
      "Analyse and compare rather than list facts. Write nothing that belongs to other sections, and do not repeat",
      "what they already say.",
      "Cite every piece of retrieved information you use by its key, as \\cite{key} or \\cite{key1, key2}. Every",
      "claim, figure and date must be supported by what you cite; leave out what the information does not support.",
      `Write only the content of the assigned part: no title and no heading. Today's date is ${input.date}.`,
      languageLine(input.language),
    ].join("\n");
  return [
    intro,
    "",
    "** User Query **",
    input.query,
    "",
    "** Current Article Summary **",
    input.survey,
    "",
    "** Analyzer's Instruction **",
    input.instruction,
    "",
    "** Retrieved Information **",
    input.information,
    "",
    "## Action Example:",
    "<action> content </action>",
    "",
    ...OUTPUT(
      "what you will write, and which keys support it",
      "the content in Markdown, citing with the keys",
    ),
  ].join("\n");
}

/** The Analyst's deepening decision: expand one section into subsections, or nop. */
export function extendPlanPrompt(input: PromptInputs & { report: string; forced: boolean }): string {
  const [low, high] = NATIVE_SUBSECTIONS;
  const intro =
    input.intro ??
    [
      "You plan research reports and design their outlines.",
      "Judging by what the user asked for and the full report so far, decide whether a section should be divided",
      "into subsections.",
      "",
      "## Important Notes:",
      `1. Choose at most one section or subsection, the one that most needs depth: a level-1 or level-2 one not yet divided, into ${low}-${high} subsections.`,
      input.forced
        ? "2. You must expand one section now."
        : '2. If nothing needs expanding, answer with the "nop" action (no operation).',
      "3. Expand where it makes the report more complete or more insightful.",
      `4. The new subsections must neither repeat other sections nor go into needless detail${input.forced ? "." : "; if they would, answer nop."}`,
      "5. The new subsections must fit the sections around them.",
      `6. ${languageLine(input.language)}`,
    ].join("\n");
  return [
    intro,
    "",
    "** User Query **",
    input.query,
    "",
    "** Current Full Report **",
    input.report,
    "",
    "** Available Actions **",
    "- extend-plan: add subsections to a section (section-1 gets section-1.1, section-1.2, section-1.3, ...).",
    ...(input.forced ? [] : ["- nop: no operation."]),
    "",
    "## Action Format:",
    '<action> {"name": "extend-plan", "position": "section-x.y", "subsections": [{"title": "...", "plan": "..."}, {"title": "...", "plan": "..."}, ...]} </action>',
    ...(input.forced ? [] : ['<action> {"name": "nop"} </action>']),
    "",
    ...OUTPUT("your reasoning, step by step", "the action, as one JSON object"),
  ].join("\n");
}
