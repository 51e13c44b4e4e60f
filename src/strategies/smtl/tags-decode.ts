/**
 * Decoding a reply of smtl's tag protocol (native-format.ts has the format rules): the answer,
 * the tool calls, or — without either — the plan or summary of the deep-search mode, or the
 * deep-research mode's notes (`<subtask_list>`, `<subtask>`, `<analysis>`, `<plan>`,
 * `<subtask_answer>`, `<summary>`; seed: SMTL App. D.1). Pure functions of the reply, so a
 * transcript in the released format can be replayed through them.
 */

import { type Decoded, decoded, refused } from "../../kit/protocol/codec.ts";
import type { ResearchToolName } from "../../kit/research-tools.ts";
import {
  formatProblem,
  type NativeCall,
  type NativeTag,
  parseToolCalls,
  tagContent,
} from "./native-format.ts";

/** A decoded reply of the tag protocol. */
export type TagAction =
  | { kind: "answer"; text: string }
  | { kind: "calls"; calls: NativeCall[] }
  | { kind: "plan"; text: string }
  | { kind: "summary"; text: string }
  | { kind: "note"; tags: NoteTag[]; text: string };

/** The deep-research tags a reply without calls or an answer may hold (App. D.1). */
const NOTE_TAGS = ["subtask_list", "subtask", "analysis", "plan", "subtask_answer", "summary"] as const;
export type NoteTag = (typeof NOTE_TAGS)[number];

/** The trajectory action of a research-mode note: named by its weightiest tag. */
const NOTE_ACTION: Record<NoteTag, string> = {
  subtask_answer: "subtask-answer",
  subtask_list: "subtask-list",
  summary: "summary",
  plan: "plan",
  subtask: "subtask",
  analysis: "analysis",
};

/** What decoding needs of a mode. */
export interface DecodeMode {
  research: boolean;
  tags: readonly NativeTag[];
}

/** A step's reply: the answer, tool calls, the plan or summary, or a research note. */
export function decodeTagReply(
  reply: string,
  mode: DecodeMode,
  tools: readonly ResearchToolName[],
): Decoded<TagAction> {
  const problem = formatProblem(reply, mode.tags);
  if (problem) return refused(problem);
  const answer = tagContent(reply, "answer");
  if (answer !== null) return decoded({ kind: "answer", text: answer });
  const calls = parseToolCalls(reply, tools);
  if (calls.length) return decoded({ kind: "calls", calls });
  if (mode.research) {
    const tags = NOTE_TAGS.filter((t) => tagContent(reply, t) !== null);
    if (!tags.length)
      return refused(
        `a reply without tool calls or an answer holds one of ${NOTE_TAGS.map((t) => `<${t}>`).join(", ")}`,
      );
    return decoded({ kind: "note", tags, text: tagContent(reply, tags.at(-1)!)! });
  }
  const plan = tagContent(reply, "plan");
  const summary = tagContent(reply, "summary");
  if ((plan === null) === (summary === null))
    return refused("a reply without tool calls or an answer holds exactly one <plan> or <summary>");
  return plan !== null ? decoded({ kind: "plan", text: plan }) : decoded({ kind: "summary", text: summary! });
}

/** The reply to the request for a summary before a reset: the summary (research: or the new plan). */
export function decodeSummaryReply(reply: string, mode: DecodeMode): Decoded<string> {
  const problem = formatProblem(reply, mode.tags);
  if (problem) return refused(problem);
  const kept = mode.research
    ? (["summary", "plan", "subtask_list", "analysis"] as const)
    : (["summary"] as const);
  const summary = kept.map((t) => tagContent(reply, t)).find((text) => text);
  return summary ? decoded(summary) : refused("the reply to the summary request holds no <summary>");
}

/** The trajectory action of a note: its weightiest tag's. */
export function noteAction(tags: readonly NoteTag[]): string {
  const order = Object.keys(NOTE_ACTION) as NoteTag[];
  return NOTE_ACTION[order.find((t) => tags.includes(t))!];
}

/** The plan a framing reply gives: the subtask list in research mode. */
export function planText(action: TagAction, raw: string): string {
  if (action.kind === "note") return tagContent(raw, "subtask_list") ?? action.text;
  return action.kind === "plan" ? action.text : "";
}
