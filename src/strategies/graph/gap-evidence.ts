/**
 * What the gap check (the ephemeral rubric, UPDATEGUIDANCE) reads: each outline section's
 * evidence within a budget in characters — enough to judge coverage, whether the figures, dates
 * and aspects a section needs are there — spread over the section's passages: every passage that
 * fits is shown whole, and when they do not all fit each is cut to the same share, its sentences
 * that matter most for the section kept.
 */

import { flattenOutline } from "../../core/outline.ts";
import type { PlanGraph } from "../../core/plan-graph.ts";
import { briefEvidence } from "../../kit/evidence-brief.ts";
import { rankEvidence, selectEvidence } from "../../kit/evidence-select.ts";
import type { PlannedOutline } from "../../kit/outliner.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { servesSection } from "../../kit/writer-brief.ts";
import type { NodeResult } from "./execute.ts";

/** Characters of each section's evidence the gap check reads, by default. */
export const GAP_SECTION_CHARS = 4000;

/** The smallest share of a section's budget one passage is given: how many passages it holds. */
export const GAP_MIN_PASSAGE_CHARS = 250;

/** Passages a section's budget holds at most. */
export function passagesWithin(budget: number): number {
  return Math.max(1, Math.floor(budget / GAP_MIN_PASSAGE_CHARS));
}

/**
 * The largest length `cap` such that the passages, each cut to `cap`, fit `budget` together (the
 * longest length when they fit whole): the budget spread evenly, a short passage giving what it
 * does not use to the others.
 */
export function passageCap(lengths: readonly number[], budget: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(left / (sorted.length - i));
    if (sorted[i]! > share) return Math.max(1, share);
    left -= sorted[i]!;
  }
  return Math.max(1, sorted.at(-1) ?? 1);
}

const flat = (text: string) => text.replace(/\s+/g, " ").trim();
/** A passage that ends a sentence (read from a page), not one cut off (a search snippet). */
const whole = (text: string) => /[.!?。！？]["'”)\]]?$/u.test(text.trim());

/** What {@link evidenceBySection} reads. */
export interface GapEvidenceInput {
  graph: PlanGraph;
  planned: PlannedOutline;
  results: ReadonlyMap<string, NodeResult>;
  /** Characters of each section's evidence shown. Default {@link GAP_SECTION_CHARS}. */
  sectionChars?: number;
}

/**
 * The evidence state by outline section, for the ephemeral rubric: per section the subtasks
 * that served it and its passages — their own evidence first, then the run's other evidence
 * about the section, most relevant first — within the section's character budget. A passage is
 * written out once: a later section that shares it names its id.
 */
export function evidenceBySection(ctx: Pick<RunContext, "evidence">, input: GapEvidenceInput): string {
  const budget = input.sectionChars ?? GAP_SECTION_CHARS;
  const pool = ctx.evidence.evidence();
  const byId = new Map(pool.map((e) => [e.id, e]));
  const shown = new Set<string>();
  return flattenOutline(input.planned.outline)
    .map((s) => {
      const nodes = input.graph.nodes.filter(
        (n) => servesSection(n.sections, s.id) && input.results.has(n.id),
      );
      const own = nodes.flatMap((n) => input.results.get(n.id)!.evidenceIds);
      const text = `${s.title} ${s.plan}`;
      // The passages read before the cut-off snippets that announced them, most relevant first.
      const ranked = rankEvidence(
        text,
        own.map((id) => byId.get(id)).filter((e) => e !== undefined),
      );
      const preferred = [...ranked.filter((e) => whole(e.text)), ...ranked.filter((e) => !whole(e.text))].map(
        (e) => e.id,
      );
      const passages = selectEvidence({
        text,
        pool,
        preferred,
        limit: passagesWithin(budget),
        relevantOnly: true,
      });
      const served = nodes.length
        ? `served by ${nodes.map((n) => `${n.id} (${input.results.get(n.id)!.evidenceIds.length} evidence)`).join(", ")}`
        : "no subtask has served it yet";
      const again = passages.filter((e) => shown.has(e.id)).map((e) => `[${e.id}]`);
      const fresh = passages.filter((e) => !shown.has(e.id));
      for (const e of fresh) shown.add(e.id);
      const cap = passageCap(
        fresh.map((e) => flat(e.text).length),
        budget,
      );
      const lines = [
        ...(fresh.length
          ? [briefEvidence(fresh, (id) => ctx.evidence.getSource(id), { focus: text, maxChars: cap })]
          : []),
        ...(again.length ? [`also ${again.join(", ")} (above)`] : []),
      ];
      const body = lines.length ? lines.join("\n") : "(no relevant excerpt)";
      return `Section ${s.id} ${s.title} — ${served}\n${body}`;
    })
    .join("\n\n");
}
