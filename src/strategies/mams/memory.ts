/**
 * The mams memory as Eq. 4 rewrites it (seed: §3.4, App. C.6): at every chunk the state agent
 * returns the whole new memory — old facts kept, the fragment's new facts merged in, repeats
 * merged and superseded facts dropped — and it replaces the old one. Each fact carries the
 * evidence ids it rests on (its provenance), so the report can still cite it after any number of
 * rewrites. A rewrite is checked before it is taken: an evidence id never shown, a fact that lost
 * its ids, a memory over its token budget, or an empty rewrite of a memory that held facts is a
 * format error, re-asked once; a rewrite that still breaks a rule is taken with the unknown ids
 * removed and the memory cut to its budget (its leading facts kept) — an empty one keeps the
 * old memory.
 */

import { z } from "zod";
import { estimateTokens } from "../../llm/token-estimate.ts";
import { evidenceIdsIn } from "./protocol.ts";

/** One fact of the memory, e.g. `F3`, with the evidence ids it rests on. */
export interface MemoryFact {
  id: string;
  text: string;
  /** Evidence ids the fact names (its provenance), in order. */
  evidence: string[];
}

const planField = z
  .string()
  .optional()
  .describe(
    "the plan updated from this fragment as a Markdown list: steps it completes marked [x], steps it shows are needed added as [ ]; omit it when the fragment changes nothing in the plan",
  );

/** The state agent's reply (Eq. 4): the whole new memory and the plan. */
export const stateReplySchema = z.object({
  memory: z
    .array(z.string().min(3))
    .max(400)
    .describe(
      "the whole updated memory, one fact per item: every fact of the old memory kept unless the fragment corrects or supersedes it, the fragment's new facts merged in, repeats merged into one; each fact keeps its numbers, names and dates and ends with the evidence ids it rests on, e.g. [E4] or [E4, E9]",
    ),
  plan: planField,
});
/** The state agent's reply. */
export type StateReply = z.infer<typeof stateReplySchema>;

/** The memory as the agents read it: one fact per line. */
export function renderMemory(memory: readonly MemoryFact[]): string {
  return memory.length ? memory.map((f) => `${f.id}. ${f.text}`).join("\n") : "(empty)";
}

/** Estimated tokens of a memory as the agents read it. */
export function memoryTokens(memory: readonly MemoryFact[]): number {
  return estimateTokens(renderMemory(memory));
}

const normal = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
/** A fact's words without its evidence ids, for matching a rewritten fact to an old one. */
const bare = (s: string) => normal(s.replace(/\[[^\]]*\bE\d+[^\]]*\]/g, " "));

/** What a rewrite breaks; empty when it can be taken as it is. */
export interface RewriteProblems {
  /** Evidence ids named that were never shown to the agents. */
  unknownIds: string[];
  /** Facts (as written) that name no evidence id and repeat no old fact's words. */
  unsourced: string[];
  /** Estimated tokens of the rewritten memory, when over the budget. */
  overBudget?: number;
  /** True when the rewrite holds no fact though the old memory held some. */
  emptied: boolean;
}

/** What a rewrite is checked against: the old memory, the ids shown so far, the token budget. */
export interface RewriteRules {
  before: readonly MemoryFact[];
  known: ReadonlySet<string>;
  budget: number;
}

/**
 * The rewritten memory before any repair: facts numbered F1… in order, repeats dropped, and a
 * fact rewritten without ids that repeats an old fact's words given that fact's ids (provenance
 * carried).
 */
export function readRewrite(
  texts: readonly string[],
  before: readonly MemoryFact[],
): { facts: MemoryFact[]; carried: number } {
  const oldIds = new Map(before.map((f) => [bare(f.text), f.evidence]));
  const seen = new Set<string>();
  const facts: MemoryFact[] = [];
  let carried = 0;
  for (const raw of texts) {
    let text = raw.trim();
    const key = normal(text);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    let evidence = evidenceIdsIn(text);
    const inherited = evidence.length ? undefined : oldIds.get(bare(text));
    if (inherited?.length) {
      text = `${text} [${inherited.join(", ")}]`;
      evidence = [...inherited];
      carried++;
    }
    facts.push({ id: `F${facts.length + 1}`, text, evidence });
  }
  return { facts, carried };
}

/** The rules a rewritten memory breaks (see {@link RewriteProblems}). */
export function rewriteProblems(facts: readonly MemoryFact[], rules: RewriteRules): RewriteProblems {
  const unknownIds = [...new Set(facts.flatMap((f) => f.evidence.filter((id) => !rules.known.has(id))))];
  const unsourced = facts.filter((f) => f.evidence.length === 0).map((f) => f.text);
  const tokens = memoryTokens(facts);
  const emptied = facts.length === 0 && rules.before.length > 0;
  return { unknownIds, unsourced, emptied, ...(tokens > rules.budget ? { overBudget: tokens } : {}) };
}

/** True when a rewrite breaks no rule. */
export function isClean(p: RewriteProblems): boolean {
  return !p.emptied && p.unknownIds.length === 0 && p.unsourced.length === 0 && p.overBudget === undefined;
}

/** The problems as the re-ask tells the state agent. */
export function describeProblems(p: RewriteProblems, budget: number): string {
  return [
    ...(p.emptied ? ["the memory came back empty: every fact of the old memory must be kept or merged"] : []),
    ...(p.unknownIds.length
      ? [
          `evidence id(s) ${p.unknownIds.join(", ")} were never shown: cite only ids of the memory or the fragment`,
        ]
      : []),
    ...(p.unsourced.length
      ? [
          `${p.unsourced.length} fact(s) name no evidence id (e.g. "${p.unsourced[0]!.slice(0, 80)}"): end every fact with the ids it rests on`,
        ]
      : []),
    ...(p.overBudget !== undefined
      ? [
          `the memory holds about ${p.overBudget} tokens, over its budget of ${budget}: merge overlapping facts and compress`,
        ]
      : []),
  ].join("; ");
}

/** What repairing a rewrite that still breaks a rule changed. */
export interface Repair {
  memory: MemoryFact[];
  /** Unknown ids removed from the facts. */
  idsRemoved: number;
  /** Facts cut to keep the memory within its budget. */
  factsCut: number;
}

/**
 * A rewrite made fit to take: an empty one leaves the old memory as it was; otherwise unknown ids
 * are removed (a fact left with none keeps its words but cites nothing), then the leading facts
 * that fit the budget are kept and the rest cut.
 */
export function repairRewrite(facts: readonly MemoryFact[], rules: RewriteRules): Repair {
  if (facts.length === 0 && rules.before.length > 0)
    return { memory: rules.before.map((f) => ({ ...f })), idsRemoved: 0, factsCut: 0 };
  let idsRemoved = 0;
  const cleaned = facts.map((f) => {
    const unknown = f.evidence.filter((id) => !rules.known.has(id));
    if (!unknown.length) return f;
    idsRemoved += unknown.length;
    const text = f.text
      .replace(/\[([^\]]*\bE\d+[^\]]*)\]/g, (_, list: string) => {
        const kept = list
          .split(/\s*[,;]\s*/)
          .filter((id) => !unknown.includes(id.trim()))
          .filter(Boolean);
        return kept.length ? `[${kept.join(", ")}]` : "";
      })
      .replace(/\s+([.,;:])/g, "$1")
      .trim();
    return { ...f, text, evidence: f.evidence.filter((id) => rules.known.has(id)) };
  });
  const memory: MemoryFact[] = [];
  for (const f of cleaned) {
    if (memoryTokens([...memory, f]) > rules.budget) break;
    memory.push(f);
  }
  return { memory, idsRemoved, factsCut: cleaned.length - memory.length };
}
