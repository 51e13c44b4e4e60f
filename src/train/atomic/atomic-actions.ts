/**
 * The actions atomic-skill rollouts sample (AgentCPM-Report §2.3.2, Appendix A.6.1): one call of
 * the WARP policy, from a teacher's state, for each of its four model actions —
 *
 * | `--atomic` | the call | scored as |
 * |---|---|---|
 * | `initialize` | the planner's INITIALIZE (the level-1 outline) | planning |
 * | `search` | a searcher's SEARCH (its keywords, searched) | retrieval |
 * | `write` | a writer's WRITE (one section's paragraphs) | writing |
 * | `deepen` | the planner's deepening decision: EXPAND one section, or TERMINATE | planning (EXPAND) and decision-making |
 *
 * A sampled reply is decoded here (warp's JSON protocol): it parses as the action's JSON answer
 * (structured output's lenient reading), a SEARCH gives 1–5 keywords, an INITIALIZE a title and
 * 3–12 sections of title and plan, a WRITE its content, a deepening decision EXPAND of a section
 * the state allows (level 1 or 2, not divided, not expanded before) into 2–7 subsections, or
 * TERMINATE. A reply that does not is refused with the reason, which becomes the call's format
 * error. The finer qualities (the question's script, the section count within the paper's bounds,
 * the citations' precision, the decision's accuracy) are what the atomic reward scores.
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { parseStructured } from "../../llm/structured.ts";

/** The actions atomic-skill rollouts sample. */
export const ATOMIC_ACTIONS = ["initialize", "search", "write", "deepen"] as const;
/** An action atomic-skill rollouts sample. */
export type AtomicAction = (typeof ATOMIC_ACTIONS)[number];

/** The action of a CLI name; INPUT_INVALID names the known ones. */
export function atomicAction(name: string): AtomicAction {
  if (!(ATOMIC_ACTIONS as readonly string[]).includes(name))
    throw new DossierError(
      "INPUT_INVALID",
      `--atomic must be one of ${ATOMIC_ACTIONS.join(", ")} (deepen: the EXPAND or TERMINATE decision), got "${name}"`,
    );
  return name as AtomicAction;
}

/** The trajectory actions of a teacher that are states of an atomic action. */
export function teacherActionsOf(action: AtomicAction): readonly string[] {
  return action === "deepen" ? ["expand", "terminate"] : [action];
}

const item = z.object({ title: z.string().trim().min(1), plan: z.string() });
const SHAPES = {
  search: z.object({
    name: z.literal("search"),
    keywords: z.array(z.string().trim().min(2).max(200)).min(1).max(5),
  }),
  initialize: z.object({
    name: z.literal("initialize"),
    title: z.string().trim().min(3),
    sections: z.array(item).min(3).max(12),
  }),
  write: z.object({ name: z.literal("write"), position: z.string().optional(), content: z.string().min(1) }),
  deepen: z.object({
    name: z.enum(["expand", "terminate"]),
    position: z.string().optional(),
    subsections: z.array(item).optional(),
  }),
} as const;

/** A decoded reply: the trajectory action it is and its answer, or why it was refused. */
export type AtomicDecoded =
  | {
      ok: true;
      action: "initialize" | "search" | "write" | "expand" | "terminate";
      answer: Record<string, unknown>;
    }
  | { ok: false; error: string };

/** What the decoder needs of the teacher's state: the sections a deepening decision may expand. */
export interface AtomicContext {
  expandable?: ReadonlySet<string>;
}

/** The section id of a position (`section-1.2`, `1.2`), or null. */
export function positionId(position: string): string | null {
  const m = /^\s*(?:section[-\s]?)?(\d+(?:\.\d+)*)\s*$/i.exec(position);
  return m ? m[1]! : null;
}

/** Decodes a sampled reply of `action` (see the module comment). */
export function decodeAtomic(
  action: AtomicAction,
  reply: string,
  context: AtomicContext = {},
): AtomicDecoded {
  const parsed = parseStructured(reply, SHAPES[action] as z.ZodType<Record<string, unknown>>);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const value = parsed.value;
  if (action !== "deepen") return { ok: true, action, answer: value };
  const decision = value as z.infer<(typeof SHAPES)["deepen"]>;
  if (decision.name === "terminate") return { ok: true, action: "terminate", answer: { name: "terminate" } };
  const id = positionId(decision.position ?? "");
  if (id === null || !(context.expandable ?? new Set()).has(id))
    return {
      ok: false,
      error: `${decision.position ?? "(no position)"} cannot be expanded; choose one of ${[...(context.expandable ?? [])].map((s) => `section-${s}`).join(", ") || "(none)"}`,
    };
  const count = decision.subsections?.length ?? 0;
  if (count < 2 || count > 7) return { ok: false, error: `an expansion needs 2-7 subsections, not ${count}` };
  return {
    ok: true,
    action: "expand",
    answer: { name: "expand", position: `section-${id}`, subsections: decision.subsections },
  };
}

interface SkeletonSection {
  id?: unknown;
  children?: unknown;
}

/**
 * The sections a deepening decision may expand, from the outline skeleton and the expanded ids a
 * warp trajectory step records: level 1 or 2, without subsections, never expanded.
 */
export function expandableOf(state: unknown): Set<string> {
  const s = (state ?? {}) as { outline?: { sections?: unknown }; expanded?: unknown };
  const expanded = new Set(Array.isArray(s.expanded) ? s.expanded.map(String) : []);
  const out = new Set<string>();
  const walk = (sections: unknown, depth: number) => {
    if (!Array.isArray(sections)) return;
    for (const section of sections as SkeletonSection[]) {
      const id = String(section.id ?? "");
      const children = Array.isArray(section.children) ? section.children : [];
      if (depth <= 2 && children.length === 0 && id && !expanded.has(id)) out.add(id);
      walk(children, depth + 1);
    }
  };
  walk(s.outline?.sections, 1);
  return out;
}
