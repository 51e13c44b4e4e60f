/**
 * Answers of the scripted research model for the minddr strategy's agents and the shared
 * report stage: planner, search steps, page reader, sub-reports, outline, sections and the
 * coherence pass.
 */

import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** Options of the minddr answers. */
export interface MinddrScriptOptions {
  /** Subtasks the planner proposes (3–8). Default 5. */
  subtasks?: number;
  /** Section writers add an invented citation `[E999]`. */
  inventCitation?: boolean;
  /** Reader adds one excerpt that is not on the page. */
  paraphraseExcerpt?: boolean;
  /** Search steps read the first result before finishing. Default true. */
  readPages?: boolean;
}

/** Evidence ids cited as `[E<n>]` in a text, in order of first appearance. */
export const citedIds = (s: string) => [...new Set([...s.matchAll(/\[(E\d+)\]/g)].map((m) => m[1]!))];

/** The minddr planner: `subtasks` aspects of the question. */
export function minddrPlannerAnswer(user: string, options: MinddrScriptOptions): Reply {
  const question = /<question>\n([\s\S]*?)\n<\/question>/.exec(user)?.[1]?.trim() ?? "the question";
  return json({
    intent: "Understand the question and cover its main aspects with evidence.",
    title: "Research report",
    subtasks: Array.from({ length: options.subtasks ?? 5 }, (_, i) => ({
      title: `Aspect ${i + 1}`,
      goal: `Find evidence about aspect ${i + 1} of the question`,
      queries: [i === 0 ? question : `aspect ${i + 1} evidence`],
    })),
  });
}

/**
 * A minddr search step: reads the first result and finishes with that read (done with its last
 * action), or finishes at once when there is nothing to read.
 */
export function searchStepAnswer(user: string, options: MinddrScriptOptions): Reply {
  const urls = [...user.matchAll(/ — (https?:\/\/\S+)/g)].map((m) => m[1]!);
  const alreadyRead = user.includes("read_page");
  if ((options.readPages ?? true) && urls.length > 0 && !alreadyRead) {
    return json({
      thought: "Read the best result; that covers the goal.",
      done: true,
      actions: [{ tool: "read_page", url: urls[0], goal: "key facts" }],
    });
  }
  return json({ thought: "The goal is covered.", done: true, actions: [] });
}

/** The page reader: the first two sentences of the page as excerpts. */
export function readerAnswer(user: string, options: MinddrScriptOptions): Reply {
  const page =
    /===== BEGIN UNTRUSTED PAGE TEXT \S+ =====\nTitle: .*\n\n([\s\S]*?)\n===== END/.exec(user)?.[1] ?? "";
  const sentences = page.split(/(?<=\.)\s+/).filter((s) => s.length > 20);
  const evidence = sentences.slice(0, 2);
  if (options.paraphraseExcerpt) evidence.push("A sentence that the page never contained at all.");
  return json({
    rationale: "The page states relevant facts.",
    evidence,
    summary: sentences[0] ?? "Nothing relevant.",
  });
}

/** A sub-report citing the first three evidence ids it was shown. */
export function subReportAnswer(user: string): Reply {
  const found = citedIds(user).slice(0, 3);
  return {
    kind: "text",
    text: `The subtask found relevant facts ${found.map((id) => `[${id}]`).join(" ")}.`,
  };
}

/** An outline of four sections drawing on the evidence catalogue. */
export function outlineAnswer(user: string): Reply {
  const catalogue = citedIds(user);
  const sections = ["Background", "Findings", "Comparison", "Outlook"].map((title, i) => ({
    title,
    plan: `Explain the ${title.toLowerCase()} with the collected evidence`,
    evidence: catalogue.slice(i * 2, i * 2 + 3),
    subsections: [],
  }));
  return json({ title: "Research report on the question", sections });
}

/** A section quoting the first three excerpts of its evidence block, each cited. */
export function sectionAnswer(user: string, options: MinddrScriptOptions): Reply {
  const block = user.slice(user.indexOf("<evidence>"));
  const evidence = [...block.matchAll(/^\[(E\d+)\] ([^\n]+)$/gm)].slice(0, 3);
  const body = evidence
    .map(([, id, excerpt]) => `${excerpt!.replace(/^… /, "").replace(/ ?…$/, "")} [${id}]`)
    .join(" ");
  return { kind: "text", text: `${body}${options.inventCitation ? " An invented claim [E999]." : ""}` };
}

/**
 * The editor: title, introduction and conclusion, citing the first two ids of its prompt — of
 * the draft (the coherence pass) or of the writers' evidence lists (the frame pass).
 */
export function coherenceAnswer(user: string): Reply {
  const found = citedIds(user).slice(0, 2);
  return json({
    title: "Research report",
    introduction: `This report answers the question with the evidence gathered ${found.map((id) => `[${id}]`).join("")}.`,
    conclusion: "Taken together, the sections answer the question and show what remains open.",
  });
}
