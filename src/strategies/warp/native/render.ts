/**
 * The state as AgentCPM-Report's released prompts show it (its `_print_tasknote` layouts).
 *
 * The outline is one line per node under a title line, indented four spaces per level below
 * the first, every line ending in a newline:
 *
 * ```
 * # Title: [OK] Heat pumps in cold climates
 * # Section-1 [Efficiency]: [OK] <content on one line>
 *     ## Section-1.1 [Field trials]: [PLAN] <plan on one line>
 *         ### Section-1.1.1 [Alpine trials]: [PLAN] <plan>
 * ```
 *
 * A written node shows `[OK]` and its content, an unwritten one `[PLAN]` and its plan; the
 * title line carries `[OK]` as the released renderer gives it. With no outline yet the text is
 * `There is no survey.`. Three views:
 *
 * - `abbreviated` (the searcher's): every written node shortened to its head and tail;
 * - `full` (the deepener's): every node whole;
 * - `local` (the writer's): the nodes around the last section written before the cursor whole,
 *   the others shortened, after the released rule: the last written node's level decides —
 *   level 1 (or nothing written): every level-1 node whole; level 2: its level-1 parent and
 *   that parent's subsections whole; level 3: its level-2 parent and that parent's subsections
 *   whole; the subsections of the last written node's level-1 or level-2 ancestor are whole.
 *
 * Shortening keeps the first 100 and the last 50 tokens of a node longer than 150, joined by
 * ` ... `. The released renderer does this only when given a tokenizer (its prompt server
 * passes none, so it shows every node whole); Dossier shortens with an approximate token count
 * (a word, a punctuation mark or a CJK character is a token). The released near-node renderer
 * also repeats a node's content twice on its line; Dossier shows it once.
 *
 * Citations are shown in the protocol's own form, `\cite{textidN}`, and passages as
 * `bibkey:textidN`, a newline, and the passage text, joined by blank lines (no title line); no
 * passage is the empty text.
 */

import { flattenOutline, type Outline } from "../../../core/outline.ts";
import type { Evidence } from "../../../core/source.ts";
import { positionOf } from "../draft.ts";
import { evidenceToCitations, keyOfEvidence } from "./keys.ts";

/** Tokens kept at the head and the tail of a shortened node, and the length that shortens. */
export const ABBREVIATE = { head: 100, tail: 50, over: 150 } as const;

/** The text with no outline yet. */
export const NO_SURVEY = "There is no survey.";

const CJK = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff";
/** Approximate tokens, each with the whitespace before it, so that joining them gives the text. */
const TOKEN = new RegExp(`\\s*(?:[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+|[^\\s])|\\s+$`, "gu");

/** The released renderer's one line: every newline a space, trimmed. */
const oneLine = (text: string) => text.replace(/\n/g, " ").trim();

/** A node's text shortened to its head and tail tokens when it is longer than 150 tokens. */
export function abbreviate(text: string): string {
  const tokens = text.match(TOKEN) ?? [];
  if (tokens.length <= ABBREVIATE.over) return text;
  const head = tokens.slice(0, ABBREVIATE.head).join("").trimEnd();
  const tail = tokens.slice(-ABBREVIATE.tail).join("").trimStart();
  return `${head} ... ${tail}`;
}

/** How {@link renderSurvey} shows written nodes. */
export type SurveyView =
  | { mode: "abbreviated" }
  | { mode: "full" }
  /** `cursor`: the section being written. */
  | { mode: "local"; cursor: string };

/** True when `id` is `ancestor` or below it. */
const under = (id: string, ancestor: string) => id === ancestor || id.startsWith(`${ancestor}.`);

/** The id's ancestor at `level` (1-based). */
const prefix = (id: string, level: number) => id.split(".").slice(0, level).join(".");

/**
 * True when node `id` (at `depth`) is shown whole in the writer's view, `last` being the last
 * section written before the cursor (undefined: nothing written yet).
 */
export function shownWhole(id: string, depth: number, last: string | undefined): boolean {
  const level = last === undefined ? 1 : last.split(".").length;
  if (depth === 1) return level === 1 || (level === 2 && under(last!, id));
  if (depth === 2) return (level === 2 && under(last!, prefix(id, 1))) || (level === 3 && under(last!, id));
  return last !== undefined && level >= 2 && under(last, prefix(id, 2));
}

/** The last section with content before `cursor` in document order, or undefined. */
function lastWrittenBefore(outline: Outline, cursor: string): string | undefined {
  let last: string | undefined;
  for (const s of flattenOutline(outline)) {
    if (s.id === cursor) break;
    if (s.content?.trim()) last = s.id;
  }
  return last;
}

/** The outline and draft as the protocol's prompts show them. */
export function renderSurvey(title: string, outline: Outline, view: SurveyView): string {
  const sections = flattenOutline(outline);
  if (sections.length === 0) return NO_SURVEY;
  const last = view.mode === "local" ? lastWrittenBefore(outline, view.cursor) : undefined;
  const lines = [`# Title: [OK] ${oneLine(title)}`];
  for (const s of sections) {
    const content = s.content?.trim();
    let body: string;
    if (content) {
      const text = evidenceToCitations(content);
      const whole = view.mode === "full" || (view.mode === "local" && shownWhole(s.id, s.depth, last));
      body = `[OK] ${oneLine(whole ? text : abbreviate(text))}`;
    } else body = `[PLAN] ${oneLine(s.plan)}`;
    const indent = "    ".repeat(s.depth - 1);
    lines.push(`${indent}${"#".repeat(s.depth)} Section-${s.id} [${oneLine(s.title)}]: ${body}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Passages as `bibkey:textidN`, a newline and the passage text, joined by blank lines. */
export function renderPassages(passages: readonly Evidence[]): string {
  return passages
    .map((e) => `bibkey:${keyOfEvidence(e.id)}\n${e.text.trim()}`)
    .join("\n\n")
    .trim();
}

/** The cursor as the protocol names it: `outline` before the outline exists, else `section-x.y`. */
export function cursorName(id?: string): string {
  return id === undefined ? "outline" : positionOf(id);
}

/** The Analyst's instruction for the node at the cursor. */
export function instructionFor(id?: string): string {
  return `You need to update ${cursorName(id)}`;
}
