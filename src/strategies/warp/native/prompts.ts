/**
 * The four role prompts of AgentCPM-Report's protocol, written for Dossier after the structure
 * of the seed's prompts (the checkpoints were trained on that structure): a role paragraph,
 * notes, the inputs under `** … **` headers, the available actions with their exact JSON
 * shapes, and the `<thought>` / `<action>` output format. Each is one user message rebuilt from
 * the state; there is no system message and no chat history. Additions to the seed's
 * structure: today's date (temporal reasoning uses the run's date) and the section count range.
 */

import { languageName } from "../../../kit/language.ts";
import { NATIVE_SECTIONS, NATIVE_SUBSECTIONS } from "./format.ts";

const OUTPUT_JSON = (what: string) => [
  "** Output Format **",
  `<thought> ${what} </thought>`,
  "<action> the action, as one JSON object </action>",
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
}

/** The Searcher: 1–5 keywords for the part of the article the Analyst names. */
export function searchPrompt(input: PromptInputs & { outline: string; instruction: string }): string {
  return [
    'You are the Searcher of a three-agent writing team ("Analyst-Searcher-Writer"). The Analyst tells you which',
    "part of the article needs material next, and you pick the search keywords that will retrieve it. Keep to the",
    "output format below.",
    "Let the user's query, the article outline so far and the Analyst's instruction decide the keywords. Give one",
    `to five of them. ${languageLine(input.language)}`,
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
    ...OUTPUT_JSON("how you chose the keywords"),
  ].join("\n");
}

/** The Analyst's first plan: a title and the top-level sections. */
export function initPlanPrompt(input: PromptInputs & { information: string }): string {
  return [
    "You are an expert in planning research reports and designing their outlines.",
    "Study the user's query and the retrieved information, and propose a first, simple outline of the article:",
    "its title and its top-level sections only, each with a plan of what it will cover.",
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
    ...OUTPUT_JSON("your reasoning, step by step"),
  ].join("\n");
}

/** The Writer: the content of the one node the Analyzer assigns. */
export function writePrompt(
  input: PromptInputs & { survey: string; instruction: string; information: string },
): string {
  return [
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
    "** Output Format **",
    "<thought> what you will write, and which keys support it </thought>",
    "<action> the content in Markdown, citing with the keys </action>",
    "",
    "Answer in exactly this format and nothing else.",
  ].join("\n");
}

/** The Analyst's deepening decision: expand one section into subsections, or nop. */
export function extendPlanPrompt(
  input: PromptInputs & { report: string; forced: boolean; candidates: readonly string[] },
): string {
  return [
    "You are an expert in planning research reports and designing their outlines.",
    "Judging by what the user asked for and the full report so far, decide whether a section should be expanded",
    "into subsections.",
    "",
    "## Important Notes:",
    "1. Choose at most one section or subsection: the one that most needs more depth.",
    input.forced
      ? "2. You must expand one section now."
      : '2. If nothing needs expanding, answer with the "nop" action (no operation).',
    "3. Expand where it makes the report more complete or more insightful.",
    "4. The new subsections must neither repeat other sections nor go into needless detail; if they would, answer nop.",
    "5. The new subsections must fit the sections around them.",
    `6. Only a level-1 or level-2 section without subsections can be expanded, by one level, into ${NATIVE_SUBSECTIONS[0]}-${NATIVE_SUBSECTIONS[1]} subsections. Candidates: ${input.candidates.join(", ") || "none"}.`,
    `7. ${languageLine(input.language)}`,
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
    ...OUTPUT_JSON("your reasoning, step by step"),
  ].join("\n");
}
