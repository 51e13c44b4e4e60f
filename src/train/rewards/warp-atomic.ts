/**
 * WARP's atomic-skill rewards (AgentCPM-Report §2.3.2, Table 1, Appendix A.6.1): one reward per
 * action, from the ability it exercises.
 *
 * | ability (actions)                 | components                                                      |
 * |-----------------------------------|-----------------------------------------------------------------|
 * | planning (INITIALIZE, EXPAND)     | basic properties, holistic quality (LLM), faithfulness (LLM)    |
 * | retrieval (SEARCH)                | recall of the golden documents                                  |
 * | writing (WRITE)                   | basic properties, holistic quality (LLM), faithfulness (LLM), citation precision |
 * | decision-making (TERMINATE)       | accuracy against the reference decision                         |
 *
 * - Plan basic properties: 2–7 sections (the paper's bound on subsections) and the question's
 *   script ("language consistency by character statistics": both mostly CJK or both not).
 * - Paragraph basic properties: 100–2000 tokens (Dossier's token estimate), 0–12 cited evidence
 *   ids, the question's script.
 * - Holistic quality: the judge rates 1–5 on guidance, hierarchical clarity and logical
 *   coherence for a plan (Table 8), relevance, coverage, depth and novelty for a paragraph
 *   (Table 9); each rating is normalised to (s − 1) / 4 and the aspects averaged.
 * - Faithfulness: the judge's share of supported content, in [0, 1].
 * - Citation precision: 0 when the paragraph cites an id it was not given (hallucination), else
 *   the F1 of its cited ids against the golden ones (1 when both are empty).
 * - Recall: |retrieved ∩ golden| / |golden| over document locators.
 * - Accuracy: 1 when the deepening decision (EXPAND or TERMINATE) matches the reference
 *   decision, else 0 — EXPAND is scored as planning and as a decision.
 *
 * The paper does not say how an action's components combine, nor how basic properties become a
 * number; our choice: basic properties score the share of their checks that pass, and an
 * action's reward is the unweighted mean of its components that could be computed (a judge not
 * given or a reference missing leaves its component null). Judges are injected.
 */

import { estimateTokens } from "../../llm/token-estimate.ts";

/** The actions of WARP (Table 6). */
export type WarpActionName = "initialize" | "expand" | "search" | "write" | "terminate";
/** The abilities they exercise. */
export type WarpAbility = "planning" | "retrieval" | "writing" | "decision-making";

/** The ability of an action. */
export const WARP_ABILITY: Readonly<Record<WarpActionName, WarpAbility>> = {
  initialize: "planning",
  expand: "planning",
  search: "retrieval",
  write: "writing",
  terminate: "decision-making",
};

/** One planned section. */
export interface PlannedSection {
  title: string;
  plan: string;
}

/** What the reference (a teacher trajectory, or a pruned label) says about an action. */
export interface WarpReference {
  /** Golden document locators (retrieval recall). */
  docs?: readonly string[];
  /** Golden evidence ids (citation precision). */
  citations?: readonly string[];
  /** The right deepening decision here. */
  decision?: "expand" | "terminate";
  /** A reference plan or paragraph for the quality judges (the paper's "score 5" answer). */
  text?: string;
}

/** One action to score. */
export interface WarpActionSample {
  question: string;
  action: WarpActionName;
  /** INITIALIZE: its sections; EXPAND: its subsections. */
  plan?: readonly PlannedSection[];
  /** WRITE: the paragraph. */
  content?: string;
  /** WRITE: the evidence ids it was given. */
  given?: readonly string[];
  /** WRITE: the passages it was given (for faithfulness). */
  passages?: readonly string[];
  /** SEARCH: the documents its keywords retrieved (locators). */
  retrieved?: readonly string[];
  reference?: WarpReference | null;
}

/** Plan quality ratings, 1–5 each (Table 8). */
export interface PlanQuality {
  guidance: number;
  hierarchy: number;
  coherence: number;
}
/** Paragraph quality ratings, 1–5 each (Table 9). */
export interface ParagraphQuality {
  relevance: number;
  coverage: number;
  depth: number;
  novelty: number;
}

/** The injected LLM judges (each optional). */
export interface WarpJudges {
  planQuality?: (input: {
    question: string;
    plan: readonly PlannedSection[];
    reference?: string;
  }) => Promise<PlanQuality>;
  planFaithfulness?: (input: { question: string; plan: readonly PlannedSection[] }) => Promise<number>;
  paragraphQuality?: (input: {
    question: string;
    content: string;
    reference?: string;
  }) => Promise<ParagraphQuality>;
  paragraphFaithfulness?: (input: {
    question: string;
    content: string;
    passages: readonly string[];
  }) => Promise<number>;
}

/** Bounds of the basic properties. */
export interface WarpBounds {
  sections: { min: number; max: number };
  paragraphTokens: { min: number; max: number };
  citations: { min: number; max: number };
}
/** The paper's bounds (A.6.1). */
export const WARP_BOUNDS: WarpBounds = {
  sections: { min: 2, max: 7 },
  paragraphTokens: { min: 100, max: 2000 },
  citations: { min: 0, max: 12 },
};

/** An action's components (null: not computable) and reward. */
export interface WarpActionReward {
  action: WarpActionName;
  ability: WarpAbility;
  components: {
    basic: number | null;
    quality: number | null;
    faithfulness: number | null;
    citationPrecision: number | null;
    recall: number | null;
    accuracy: number | null;
  };
  /** The mean of the non-null components; null when none could be computed. */
  reward: number | null;
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/gu;

/** True when most letters of `text` are CJK characters. */
export function mostlyCjk(text: string): boolean {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return letters > 0 && (text.match(CJK)?.length ?? 0) * 2 >= letters;
}

/** True when `text` is written in the question's script (both mostly CJK or both not). */
export function sameScript(question: string, text: string): boolean {
  return mostlyCjk(question) === mostlyCjk(text);
}

const within = (x: number, b: { min: number; max: number }) => x >= b.min && x <= b.max;
const shareTrue = (checks: readonly boolean[]) => checks.filter(Boolean).length / checks.length;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** A 1–5 rating normalised to [0, 1]. */
export const normalizeFive = (s: number) => (Math.min(5, Math.max(1, s)) - 1) / 4;

/** Plan basic properties: share of [section count within bounds, question's script]. */
export function planBasic(question: string, plan: readonly PlannedSection[], bounds = WARP_BOUNDS): number {
  const text = plan.map((s) => `${s.title} ${s.plan}`).join("\n");
  return shareTrue([within(plan.length, bounds.sections), sameScript(question, text)]);
}

/** The distinct evidence ids a paragraph cites (`[E3]`, `[E3, E7]`). */
export function citedIds(content: string): string[] {
  const ids = new Set<string>();
  for (const m of content.matchAll(/\[([^\]\n]*)\]/g))
    for (const part of m[1]!.split(/[\s,;]+/)) if (/^E[1-9]\d*$/.test(part)) ids.add(part);
  return [...ids];
}

/** Paragraph basic properties: share of [tokens within bounds, citations within bounds, question's script]. */
export function paragraphBasic(question: string, content: string, bounds = WARP_BOUNDS): number {
  return shareTrue([
    within(estimateTokens(content), bounds.paragraphTokens),
    within(citedIds(content).length, bounds.citations),
    sameScript(question, content),
  ]);
}

/** Citation precision: 0 on a hallucinated id, else F1(cited, golden) (1 when both are empty). */
export function citationPrecision(
  cited: readonly string[],
  given: readonly string[],
  golden: readonly string[],
): number {
  const allowed = new Set(given);
  if (cited.some((id) => !allowed.has(id))) return 0;
  const c = new Set(cited);
  const g = new Set(golden);
  if (c.size === 0 && g.size === 0) return 1;
  const hits = [...c].filter((id) => g.has(id)).length;
  if (hits === 0) return 0;
  const p = hits / c.size;
  const r = hits / g.size;
  return (2 * p * r) / (p + r);
}

/** Recall of the golden documents; null without golden documents. */
export function retrievalRecall(retrieved: readonly string[], golden: readonly string[]): number | null {
  const g = new Set(golden);
  if (g.size === 0) return null;
  const r = new Set(retrieved);
  return [...g].filter((d) => r.has(d)).length / g.size;
}

/** The atomic reward of one action (see the module comment). */
export async function warpActionReward(
  sample: WarpActionSample,
  judges: WarpJudges = {},
  bounds: WarpBounds = WARP_BOUNDS,
): Promise<WarpActionReward> {
  const ref = sample.reference ?? null;
  const components: WarpActionReward["components"] = {
    basic: null,
    quality: null,
    faithfulness: null,
    citationPrecision: null,
    recall: null,
    accuracy: null,
  };
  const refText = ref?.text === undefined ? {} : { reference: ref.text };
  if ((sample.action === "initialize" || sample.action === "expand") && sample.plan) {
    const plan = sample.plan;
    components.basic = planBasic(sample.question, plan, bounds);
    if (judges.planQuality) {
      const q = await judges.planQuality({ question: sample.question, plan, ...refText });
      components.quality = mean([q.guidance, q.hierarchy, q.coherence].map(normalizeFive));
    }
    if (judges.planFaithfulness)
      components.faithfulness = await judges.planFaithfulness({ question: sample.question, plan });
  }
  if (sample.action === "write" && sample.content !== undefined) {
    const content = sample.content;
    components.basic = paragraphBasic(sample.question, content, bounds);
    if (judges.paragraphQuality) {
      const q = await judges.paragraphQuality({ question: sample.question, content, ...refText });
      components.quality = mean([q.relevance, q.coverage, q.depth, q.novelty].map(normalizeFive));
    }
    if (judges.paragraphFaithfulness)
      components.faithfulness = await judges.paragraphFaithfulness({
        question: sample.question,
        content,
        passages: sample.passages ?? [],
      });
    if (ref?.citations)
      components.citationPrecision = citationPrecision(citedIds(content), sample.given ?? [], ref.citations);
  }
  if (sample.action === "search" && ref?.docs)
    components.recall = retrievalRecall(sample.retrieved ?? [], ref.docs);
  if ((sample.action === "expand" || sample.action === "terminate") && ref?.decision)
    components.accuracy = sample.action === ref.decision ? 1 : 0;
  const known = Object.values(components).filter((x): x is number => x !== null);
  return {
    action: sample.action,
    ability: WARP_ABILITY[sample.action],
    components,
    reward: known.length === 0 ? null : mean(known),
  };
}
