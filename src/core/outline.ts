/**
 * The report outline: a tree of sections with position-derived ids (`1`, `1.2`, `1.2.3`), at most
 * {@link OUTLINE_MAX_DEPTH} levels deep. Writers set the level-1 sections, expand one section at a time
 * into 2–7 children and write the content of leaves. Every operation is pure: it returns a new outline
 * and never mutates its input.
 */

import { z } from "zod";
import { DossierError } from "./errors.ts";

/** Maximum depth of an outline (level-1 sections have depth 1). */
export const OUTLINE_MAX_DEPTH = 3;
/** Minimum number of children one expansion creates. */
export const OUTLINE_MIN_CHILDREN = 2;
/** Maximum number of children one expansion creates. */
export const OUTLINE_MAX_CHILDREN = 7;

/** One section of an outline. */
export interface OutlineSection {
  /** Position-derived id: `"1"`, `"1.2"`, `"1.2.3"`. */
  id: string;
  /** The heading. */
  title: string;
  /** The writing intent: what this section should cover. */
  plan: string;
  /** The written Markdown body; on a section with children it is the intro paragraph. */
  content?: string;
  /** Sub-sections, in document order. */
  children: OutlineSection[];
}

/** A report outline. */
export interface Outline {
  /** Level-1 sections, in document order. */
  sections: OutlineSection[];
}

/** A section as a model proposes it, before it gets an id. */
export interface OutlineSectionDraft {
  /** The heading. */
  title: string;
  /** The writing intent. */
  plan: string;
}

/** A section of a flattened outline, with its depth (1 for level-1 sections). */
export type FlatOutlineSection = OutlineSection & { depth: number };

/** One problem found by {@link validateOutline}. */
export interface OutlineProblem {
  /** The id of the offending section, as stored. */
  sectionId: string;
  /** What is wrong. */
  message: string;
}

/** The shape a model emits for one section: a heading and a writing plan. */
export const outlineSectionDraftSchema = z.object({
  title: z.string().trim().min(1).describe("The section heading: short, specific, no numbering."),
  plan: z
    .string()
    .describe(
      "The writing intent: what this section must cover, which questions it answers, in 1-3 sentences.",
    ),
});

/** A stored outline section (recursive). Semantic rules are checked by {@link validateOutline}. */
export const outlineSectionSchema = z.object({
  id: z.string(),
  title: z.string(),
  plan: z.string(),
  content: z.string().optional(),
  get children(): z.ZodArray<typeof outlineSectionSchema> {
    return z.array(outlineSectionSchema);
  },
});

/** A stored outline. */
export const outlineSchema = z.object({ sections: z.array(outlineSectionSchema) });

const SECTION_ID = /^[1-9]\d*(\.[1-9]\d*)*$/;

function invalid(message: string, details: Record<string, unknown> = {}): DossierError {
  return new DossierError("OUTLINE_INVALID", message, { details });
}

function toSections(drafts: readonly OutlineSectionDraft[], parentId: string | null): OutlineSection[] {
  return drafts.map((draft, index) => {
    const title = draft.title.trim();
    if (title === "") throw invalid(`Section draft ${index + 1} has an empty title`, { index });
    const id = parentId === null ? String(index + 1) : `${parentId}.${index + 1}`;
    return { id, title, plan: draft.plan.trim(), children: [] };
  });
}

/** The depth of a section id: `"1"` → 1, `"1.2.3"` → 3. Throws OUTLINE_INVALID on a malformed id. */
export function sectionDepth(id: string): number {
  if (!SECTION_ID.test(id)) throw invalid(`Malformed section id "${id}"`, { id });
  return id.split(".").length;
}

/**
 * Creates an outline of level-1 sections with ids `"1"`..`"n"` from model drafts.
 * Throws OUTLINE_INVALID on an empty title or a section count outside `[minSections, maxSections]`.
 */
export function createOutline(
  drafts: readonly OutlineSectionDraft[],
  options: { minSections?: number; maxSections?: number } = {},
): Outline {
  const { minSections = 1, maxSections = 12 } = options;
  if (drafts.length < minSections || drafts.length > maxSections) {
    throw invalid(`An outline needs ${minSections}-${maxSections} sections, got ${drafts.length}`, {
      count: drafts.length,
      minSections,
      maxSections,
    });
  }
  return { sections: toSections(drafts, null) };
}

/** Sections in document order (pre-order), each with its depth. */
export function flattenOutline(outline: Outline): FlatOutlineSection[] {
  const out: FlatOutlineSection[] = [];
  const walk = (sections: readonly OutlineSection[], depth: number): void => {
    for (const section of sections) {
      out.push({ ...section, depth });
      walk(section.children, depth + 1);
    }
  };
  walk(outline.sections, 1);
  return out;
}

/** The section with `id`, or undefined. */
export function findSection(outline: Outline, id: string): OutlineSection | undefined {
  const found = flattenOutline(outline).find((section) => section.id === id);
  if (found === undefined) return undefined;
  const { depth: _depth, ...section } = found;
  return section;
}

/** Sections without children, in document order. */
export function outlineLeaves(outline: Outline): OutlineSection[] {
  return flattenOutline(outline)
    .filter((section) => section.children.length === 0)
    .map(({ depth: _depth, ...section }) => section);
}

/** Replaces the section `id` by `update(section, depth)`; returns null when `id` is absent. */
function replaceSection(
  outline: Outline,
  id: string,
  update: (section: OutlineSection, depth: number) => OutlineSection,
): Outline | null {
  let found = false;
  const walk = (sections: readonly OutlineSection[], depth: number): OutlineSection[] =>
    sections.map((section) => {
      if (found) return section;
      if (section.id === id) {
        found = true;
        return update(section, depth);
      }
      const children = walk(section.children, depth + 1);
      return children.some((child, i) => child !== section.children[i]) ? { ...section, children } : section;
    });
  const sections = walk(outline.sections, 1);
  return found ? { ...outline, sections } : null;
}

/**
 * Expands the section `id` into children `id.1`..`id.k` built from `drafts`. The section's existing
 * content is kept and becomes its intro paragraph. Throws OUTLINE_INVALID when the id is unknown, the
 * section already has children, the children would be deeper than {@link OUTLINE_MAX_DEPTH}, a title is
 * empty, or the child count is outside [{@link OUTLINE_MIN_CHILDREN}, {@link OUTLINE_MAX_CHILDREN}].
 */
export function expandSection(outline: Outline, id: string, drafts: readonly OutlineSectionDraft[]): Outline {
  if (drafts.length < OUTLINE_MIN_CHILDREN || drafts.length > OUTLINE_MAX_CHILDREN) {
    throw invalid(
      `An expansion needs ${OUTLINE_MIN_CHILDREN}-${OUTLINE_MAX_CHILDREN} children, got ${drafts.length}`,
      { id, count: drafts.length },
    );
  }
  const next = replaceSection(outline, id, (section, depth) => {
    if (section.children.length > 0) throw invalid(`Section ${id} already has children`, { id });
    if (depth + 1 > OUTLINE_MAX_DEPTH) {
      throw invalid(`Section ${id} is at depth ${depth}; outlines are at most ${OUTLINE_MAX_DEPTH} deep`, {
        id,
        depth,
      });
    }
    return { ...section, children: toSections(drafts, section.id) };
  });
  if (next === null) throw invalid(`No section with id ${id}`, { id });
  return next;
}

/** Sets the content of the leaf section `id`. Throws OUTLINE_INVALID on an unknown id or a non-leaf. */
export function setSectionContent(outline: Outline, id: string, content: string): Outline {
  const next = replaceSection(outline, id, (section) => {
    if (section.children.length > 0)
      throw invalid(`Section ${id} has children; only leaves take content`, { id });
    return { ...section, content };
  });
  if (next === null) throw invalid(`No section with id ${id}`, { id });
  return next;
}

/**
 * Problems of a (stored or hand-built) outline: ids inconsistent with position, depth over
 * {@link OUTLINE_MAX_DEPTH}, a section with 1 or more than {@link OUTLINE_MAX_CHILDREN} children, empty
 * titles. An empty list means the outline is valid.
 */
export function validateOutline(outline: Outline): OutlineProblem[] {
  const problems: OutlineProblem[] = [];
  const walk = (sections: readonly OutlineSection[], parentId: string | null, depth: number): void => {
    sections.forEach((section, index) => {
      const expected = parentId === null ? String(index + 1) : `${parentId}.${index + 1}`;
      const report = (message: string): void => {
        problems.push({ sectionId: section.id, message });
      };
      if (section.id !== expected) report(`Id "${section.id}" should be "${expected}" at its position`);
      if (depth > OUTLINE_MAX_DEPTH) report(`Depth ${depth} exceeds the maximum of ${OUTLINE_MAX_DEPTH}`);
      if (section.title.trim() === "") report("Empty title");
      const count = section.children.length;
      if (count === 1 || count > OUTLINE_MAX_CHILDREN) {
        report(
          `Has ${count} children; a section has none or ${OUTLINE_MIN_CHILDREN}-${OUTLINE_MAX_CHILDREN}`,
        );
      }
      walk(section.children, expected, depth + 1);
    });
  };
  walk(outline.sections, null, 1);
  return problems;
}

/** Options of {@link renderOutlineMarkdown}. */
export interface RenderOutlineOptions {
  /** Heading level of level-1 sections (default 2, i.e. `##`); deeper sections add one, capped at 6. */
  baseLevel?: number;
  /** Render each section's plan as a `> Plan:` quote under its heading (default false). */
  includePlans?: boolean;
  /** Render each section's content under its heading (default true). */
  includeContent?: boolean;
}

/** Renders the outline as Markdown: one heading per section (by depth), then its plan and content. */
export function renderOutlineMarkdown(outline: Outline, options: RenderOutlineOptions = {}): string {
  const { baseLevel = 2, includePlans = false, includeContent = true } = options;
  const blocks: string[] = [];
  for (const section of flattenOutline(outline)) {
    const level = Math.min(6, Math.max(1, baseLevel + section.depth - 1));
    blocks.push(`${"#".repeat(level)} ${section.title}`);
    if (includePlans && section.plan.trim() !== "") blocks.push(`> Plan: ${section.plan.trim()}`);
    const content = section.content?.trim() ?? "";
    if (includeContent && content !== "") blocks.push(content);
  }
  return blocks.length === 0 ? "" : `${blocks.join("\n\n")}\n`;
}

/** A compact indented listing for prompts: one line `1.2 Title — plan` per section. */
export function outlineToText(outline: Outline): string {
  return flattenOutline(outline)
    .map((section) => {
      const indent = "  ".repeat(section.depth - 1);
      const plan = section.plan.trim();
      return `${indent}${section.id} ${section.title}${plan === "" ? "" : ` — ${plan}`}`;
    })
    .join("\n");
}
