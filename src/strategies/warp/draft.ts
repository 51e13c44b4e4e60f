/**
 * The state a WARP policy acts on — question, outline, draft and citations — and the views of
 * it that prompts are rebuilt from at every step (no chat history is carried between steps).
 * The draft is the content of the outline's sections; the citations are the evidence ids each
 * section's writer was given, the only ones that section may cite.
 */

import {
  type FlatOutlineSection,
  flattenOutline,
  OUTLINE_MAX_DEPTH,
  type Outline,
  type OutlineSection,
} from "../../core/outline.ts";

/** The policy's state S = (question, outline, draft, citations). */
export interface WarpState {
  question: string;
  /** The report title chosen at initialisation. */
  title: string;
  /** The outline; each written section holds its content (the draft). */
  outline: Outline;
  /** Evidence ids each written section was given, by section id. */
  citations: ReadonlyMap<string, ReadonlySet<string>>;
  /** Ids of sections expanded so far (never expanded twice). */
  expanded: ReadonlySet<string>;
}

/** Deepest level a section may have to be expanded (its children are one deeper). */
export const EXPANDABLE_MAX_LEVEL = OUTLINE_MAX_DEPTH - 1;

/** A section position as the model names it: `section-1.2`. */
export const positionOf = (id: string): string => `section-${id}`;

/** The section id of a position (`section-1.2`, `Section 1.2`, `1.2`), or null. */
export function idOfPosition(position: string): string | null {
  const m = /^\s*(?:section[-\s]?)?(\d+(?:\.\d+)*)\s*$/i.exec(position);
  return m ? m[1]! : null;
}

/** Sections that may be expanded: level 1 or 2, without children, never expanded before. */
export function expandableSections(state: Pick<WarpState, "outline" | "expanded">): FlatOutlineSection[] {
  return flattenOutline(state.outline).filter(
    (s) => s.depth <= EXPANDABLE_MAX_LEVEL && s.children.length === 0 && !state.expanded.has(s.id),
  );
}

/** Leaves without content, in depth-first document order. */
export function unwrittenLeaves(outline: Outline): FlatOutlineSection[] {
  return flattenOutline(outline).filter((s) => s.children.length === 0 && !s.content?.trim());
}

/** Options of {@link renderDraft}. */
export interface DraftViewOptions {
  /** Total characters of section content shown; longer sections are shortened evenly. */
  maxChars?: number;
  /** Show each section's writing plan under its heading. */
  plans?: boolean;
  /** The section being worked on, marked in the view. */
  current?: string;
}

/**
 * The draft as a prompt shows it: every section's id, heading (by depth) and content, in
 * document order; unwritten sections say so. Content is shortened evenly to `maxChars`.
 */
export function renderDraft(outline: Outline, options: DraftViewOptions = {}): string {
  const sections = flattenOutline(outline);
  const total = sections.reduce((n, s) => n + (s.content?.trim().length ?? 0), 0);
  const max = options.maxChars ?? 24_000;
  const share = total > max ? max / total : 1;
  const blocks: string[] = [];
  for (const s of sections) {
    const mark = s.id === options.current ? "   <-- this section" : "";
    blocks.push(`${"#".repeat(Math.min(6, s.depth + 1))} ${positionOf(s.id)} ${s.title}${mark}`);
    if (options.plans && s.plan.trim()) blocks.push(`(plan: ${s.plan.trim()})`);
    const content = s.content?.trim() ?? "";
    if (content) blocks.push(shorten(content, Math.max(160, Math.floor(content.length * share))));
    else if (s.children.length === 0) blocks.push("(not written yet)");
  }
  return blocks.join("\n\n");
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max).trimEnd()} …`;
}

/** The head of a prompt that shows the report: the question, then the report's title. */
export function questionHead(state: Pick<WarpState, "question" | "title">): string[] {
  return ["<question>", state.question, "</question>", "", `Report title: ${state.title}`];
}

/** Section ids and titles as a compact outline for prompts (`section-1.2 Title — plan`). */
export function renderOutline(outline: Outline): string {
  return flattenOutline(outline)
    .map((s) => `${"  ".repeat(s.depth - 1)}${positionOf(s.id)} ${s.title}${s.plan ? ` — ${s.plan}` : ""}`)
    .join("\n");
}

/** The outline without content: what a trajectory step records of the state. */
export function outlineSkeleton(outline: Outline): Outline {
  const strip = (sections: readonly OutlineSection[]): OutlineSection[] =>
    sections.map((s) => ({ id: s.id, title: s.title, plan: s.plan, children: strip(s.children) }));
  return { sections: strip(outline.sections) };
}

/** Drops sections with no content in themselves or below them (nothing to show). */
export function pruneEmpty(outline: Outline): Outline {
  const keep = (sections: readonly OutlineSection[]): OutlineSection[] =>
    sections.flatMap((s) => {
      const children = keep(s.children);
      if (!s.content?.trim() && children.length === 0) return [];
      return [{ ...s, children }];
    });
  return { sections: keep(outline.sections) };
}

/** The report body as parts: one heading (`##` for level 1) and content per section. */
export function draftParts(
  state: Pick<WarpState, "outline" | "citations">,
): { text: string; allowed: ReadonlySet<string> }[] {
  return flattenOutline(pruneEmpty(state.outline)).map((s) => ({
    text: [`${"#".repeat(s.depth + 1)} ${s.title}`, s.content?.trim() ?? ""].filter(Boolean).join("\n\n"),
    allowed: state.citations.get(s.id) ?? new Set<string>(),
  }));
}
