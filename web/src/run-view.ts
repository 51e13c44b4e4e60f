/**
 * The shape of the live run view: the events it folds, the plan, sources, evidence, sections and
 * review it shows, and the empty view a run page starts from (run-state.ts folds events into it).
 */

import type { OutlineItem, WrittenSection } from "./sections.ts";

/** A stored event as the API sends it. */
export interface RunEvent {
  runId: string;
  seq: number;
  ts: string;
  type: string;
  scope?: string;
  [field: string]: unknown;
}

/** Statuses of a plan node. */
export type NodeStatus = "pending" | "running" | "done" | "failed" | "pruned";

/** A plan node as the view shows it. */
export interface PlanNodeView {
  id: string;
  type: string;
  title: string;
  goal: string;
  deps: string[];
  depth: number;
  status: NodeStatus;
  summary?: string;
}

/** A source of the run. */
export interface SourceView {
  id: string;
  kind: string;
  title: string;
  url?: string;
  path?: string;
  fetchedAt?: string;
  publishedAt?: string;
}

/** A piece of evidence with its source. */
export interface EvidenceView {
  id: string;
  sourceId: string;
  text: string;
  query?: string;
}

/** Limits of the run (absent = unlimited). */
export interface Limits {
  maxTokens?: number;
  maxToolCalls?: number;
  maxWallMs?: number;
  maxCostUsd?: number;
}

/** The plan review of a run started with `reviewPlan`, as its events tell it. */
export interface PlanReviewState {
  /** When the plan was shown for review, and until when it waits. */
  requestedAt: string;
  deadline: string;
  /** What the strategy proposed: its item titles, in order. */
  proposed: string[];
  /** The answer, once given: the plan run (its item titles) and what the edit changed. */
  answer: {
    action: string;
    items: string[] | null;
    changes: { added: string[]; removed: string[]; reworded: string[]; reordered: boolean } | null;
    reason: string;
    at: string;
  } | null;
}

/** The folded state. */
export interface RunState {
  /** The highest `seq` applied. */
  lastSeq: number;
  /** Events applied (each once). */
  count: number;
  query: string;
  strategy: string;
  phase: string;
  phaseDetail: string;
  /** `running` until run-end, then its status. */
  status: string;
  stopReason: string;
  startedAt: string | null;
  endedAt: string | null;
  limits: Limits;
  /** `costUsd` is null once any call's cost is unknown (an unpriced model): never shown as $0. */
  usage: { tokens: number; costUsd: number | null; toolCalls: number; llmCalls: number };
  plan: PlanNodeView[];
  sources: Map<string, SourceView>;
  evidence: EvidenceView[];
  warnings: { code: string; message: string; seq: number }[];
  /** The report's outline as last recorded (with draft text when the strategy records it). */
  outline: OutlineItem[];
  /** Sections being written now (their events are under way). */
  writing: string[];
  sections: WrittenSection[];
  /** Other strategies' structure: smtl steps, warp trajectory steps, mams chunks. */
  steps: { label: string; seq: number }[];
  gates: { nodeId: string; verdict: string; feedback: string; seq: number }[];
  reportFormats: string[];
  /** The plan review, once the run stopped for one (the latest, when it stopped again). */
  review: PlanReviewState | null;
  /** Last events for the timeline (newest last). */
  timeline: RunEvent[];
}

/** How many events the timeline keeps. */
export const TIMELINE_LIMIT = 10_000;

/** An empty state. */
export function emptyRunState(): RunState {
  return {
    lastSeq: 0,
    count: 0,
    query: "",
    strategy: "",
    phase: "queued",
    phaseDetail: "",
    status: "running",
    stopReason: "",
    startedAt: null,
    endedAt: null,
    limits: {},
    usage: { tokens: 0, costUsd: 0, toolCalls: 0, llmCalls: 0 },
    plan: [],
    sources: new Map(),
    evidence: [],
    warnings: [],
    outline: [],
    writing: [],
    sections: [],
    steps: [],
    gates: [],
    reportFormats: [],
    review: null,
    timeline: [],
  };
}
