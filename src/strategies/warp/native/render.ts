/**
 * The state as AgentCPM-Report's prompts show it. The outline is one block per node —
 * `## Section-2 [Title]`, `### Section-2.1 [Title]`, … under `# Title: …` — whose body is
 * `[OK] <content on one line>` once written or `[PLAN] <plan>` before. In the writer's and
 * searcher's views the nodes near the cursor (its siblings and ancestors) are shown whole and
 * the others shortened to their head and tail (about 100 + 50 tokens, as the seed's tokenizer
 * abbreviation would); the deepener sees the whole report. Citations are shown in the
 * protocol's own form, `\cite{textidN}`, and passages as `bibkey:textidN` over their text.
 */

import { flattenOutline, type Outline } from "../../../core/outline.ts";
import type { Evidence, Source } from "../../../core/source.ts";
import { positionOf } from "../draft.ts";
import { evidenceToCitations, keyOfEvidence } from "./keys.ts";

/** Characters kept at the head and the tail of a shortened node (≈ 100 and 50 tokens). */
export const ABBREVIATE_HEAD = 400;
export const ABBREVIATE_TAIL = 200;

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

function abbreviate(text: string): string {
  if (text.length <= ABBREVIATE_HEAD + ABBREVIATE_TAIL + 5) return text;
  return `${text.slice(0, ABBREVIATE_HEAD).trimEnd()} ... ${text.slice(-ABBREVIATE_TAIL).trimStart()}`;
}

/** True when `id` is shown whole for a cursor at `cursor`: a sibling or an ancestor of it. */
function near(id: string, cursor: string | undefined): boolean {
  if (cursor === undefined) return true;
  const parent = (x: string) => x.split(".").slice(0, -1).join(".");
  if (parent(id) === parent(cursor)) return true;
  return cursor.startsWith(`${id}.`);
}

/** Options of {@link renderSurvey}. */
export interface SurveyView {
  /** The section being worked on; nodes far from it are shortened. Absent: all whole. */
  cursor?: string;
  /** Shorten nodes far from the cursor. */
  abbreviate: boolean;
}

/** The outline and draft as the protocol's prompts show them. */
export function renderSurvey(title: string, outline: Outline, view: SurveyView): string {
  const sections = flattenOutline(outline);
  if (sections.length === 0) return "There is no outline yet.";
  const blocks = [`# Title: ${oneLine(title)}`];
  for (const s of sections) {
    const content = s.content?.trim();
    let body: string;
    if (content) {
      const line = oneLine(evidenceToCitations(content));
      body = `[OK] ${view.abbreviate && !near(s.id, view.cursor) ? abbreviate(line) : line}`;
    } else body = `[PLAN] ${oneLine(s.plan)}`;
    const heading = `${"#".repeat(Math.min(6, s.depth + 1))} Section-${s.id} [${oneLine(s.title)}]`;
    blocks.push(`${heading}\n\n${body}`);
  }
  return blocks.join("\n\n");
}

/** Passages as `bibkey:textidN` followed by the source's title and the passage text. */
export function renderPassages(
  passages: readonly Evidence[],
  sourceOf: (id: string) => Source | undefined,
): string {
  if (passages.length === 0) return "No information was retrieved.";
  return passages
    .map((e) => {
      const title = sourceOf(e.sourceId)?.title?.trim();
      const text = e.text.replace(/\s+/g, " ").trim();
      return `bibkey:${keyOfEvidence(e.id)}\n${title ? `${oneLine(title)}\n` : ""}${text}`;
    })
    .join("\n\n");
}

/** The cursor as the protocol names it: `outline` before the outline exists, else `section-x.y`. */
export function cursorName(id?: string): string {
  return id === undefined ? "outline" : positionOf(id);
}
