/**
 * The live run view's state, folded from the run's events in `seq` order. `applyEvent` ignores
 * an event it has already seen (a replay after a reconnect), so a stream resumed with
 * `Last-Event-ID` neither loses nor duplicates anything.
 */

import {
  type EvidenceView,
  type Limits,
  type NodeStatus,
  type PlanNodeView,
  type RunEvent,
  type RunState,
  TIMELINE_LIMIT,
} from "./run-view.ts";
import { outlineItems, sectionOfScope } from "./sections.ts";

export {
  type EvidenceView,
  emptyRunState,
  type Limits,
  type NodeStatus,
  type PlanNodeView,
  type PlanReviewState,
  type RunEvent,
  type RunState,
  type SourceView,
  TIMELINE_LIMIT,
} from "./run-view.ts";

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const STATUSES = new Set<NodeStatus>(["pending", "running", "done", "failed", "pruned"]);

function planOf(graph: unknown, previous: PlanNodeView[]): PlanNodeView[] {
  const nodes = (graph as { nodes?: unknown })?.nodes;
  if (!Array.isArray(nodes)) return previous;
  const before = new Map(previous.map((n) => [n.id, n]));
  return nodes.map((raw: Record<string, unknown>) => {
    const id = str(raw.id);
    const status = STATUSES.has(raw.status as NodeStatus) ? (raw.status as NodeStatus) : "pending";
    const result = raw.result as { summary?: unknown } | undefined;
    const summary = str(result?.summary) || before.get(id)?.summary;
    return {
      id,
      type: str(raw.type),
      title: str(raw.title),
      goal: str(raw.goal),
      deps: Array.isArray(raw.deps) ? raw.deps.filter((d): d is string => typeof d === "string") : [],
      depth: num(raw.depth) || 1,
      status,
      ...(summary ? { summary } : {}),
    };
  });
}

/** The item titles of a plan in an event (empty when it has none). */
function planTitles(plan: unknown): string[] {
  const items = (plan as { items?: unknown } | null | undefined)?.items;
  return Array.isArray(items) ? items.map((i: { title?: unknown }) => str(i?.title)) : [];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);

/** The run's own usage figures from run-end, when it carries them. */
function usageOf(raw: unknown): RunState["usage"] | null {
  const u = raw as Record<string, unknown> | null | undefined;
  if (!u || typeof u !== "object") return null;
  return {
    tokens: num(u.inputTokens) + num(u.outputTokens),
    costUsd: typeof u.costUsd === "number" ? u.costUsd : null,
    toolCalls: num(u.toolCalls),
    llmCalls: num(u.llmCalls),
  };
}

/** `list` with `item` replacing the entry of the same id, or appended. */
function upsert<T extends { id: string }>(list: T[], item: T): T[] {
  const i = list.findIndex((x) => x.id === item.id);
  if (i < 0) return [...list, item];
  const next = list.slice();
  next[i] = item;
  return next;
}

function setNode(state: RunState, id: string, patch: Partial<PlanNodeView>): void {
  const i = state.plan.findIndex((n) => n.id === id);
  if (i < 0) return;
  state.plan = state.plan.slice();
  state.plan[i] = { ...state.plan[i]!, ...patch };
}

/** Applies one event; false (and no change) when it was already applied. Mutates `state`. */
export function applyEvent(state: RunState, event: RunEvent): boolean {
  if (!Number.isFinite(event.seq) || event.seq <= state.lastSeq) return false;
  state.lastSeq = event.seq;
  state.count++;
  state.timeline.push(event);
  if (state.timeline.length > TIMELINE_LIMIT)
    state.timeline.splice(0, state.timeline.length - TIMELINE_LIMIT);
  state.startedAt ??= event.ts;
  const e = event as RunEvent & Record<string, unknown>;
  const section = sectionOfScope(event.scope);
  if (
    section !== null &&
    event.type !== "section-written" &&
    !state.writing.includes(section) &&
    !state.sections.some((w) => w.id === section)
  )
    state.writing = [...state.writing, section];
  switch (event.type) {
    case "run-start": {
      state.query = str(e.query);
      state.strategy = str(e.strategy);
      state.status = "running";
      state.endedAt = null;
      const budget = (e.options as { budget?: Limits } | undefined)?.budget;
      if (budget && typeof budget === "object") state.limits = { ...budget };
      break;
    }
    case "run-resume":
      state.status = "running";
      state.endedAt = null;
      break;
    case "phase":
      state.phase = str(e.phase);
      state.phaseDetail = str(e.detail);
      break;
    case "plan-update":
      state.plan = planOf(e.graph, state.plan);
      break;
    case "node-start":
      if (!state.plan.some((n) => n.id === e.nodeId)) {
        state.plan = [
          ...state.plan,
          {
            id: str(e.nodeId),
            type: str(e.nodeType),
            title: str(e.title),
            goal: "",
            deps: [],
            depth: 1,
            status: "running",
          },
        ];
      } else setNode(state, str(e.nodeId), { status: "running" });
      break;
    case "node-end": {
      const summary = str(e.summary) || str((e.error as { message?: unknown } | undefined)?.message);
      setNode(state, str(e.nodeId), {
        status: e.status === "failed" ? "failed" : "done",
        ...(summary ? { summary } : {}),
      });
      break;
    }
    case "gate-verdict":
      state.gates = [
        ...state.gates,
        { nodeId: str(e.nodeId), verdict: str(e.verdict), feedback: str(e.feedback), seq: event.seq },
      ];
      break;
    case "llm-end":
      // A resumed run replays its journal: those calls were counted in the earlier attempt.
      if (e.replayed === true) break;
      state.usage = {
        ...state.usage,
        llmCalls: state.usage.llmCalls + 1,
        tokens: state.usage.tokens + num(e.inputTokens) + num(e.outputTokens),
        costUsd:
          state.usage.costUsd === null || typeof e.costUsd !== "number"
            ? null
            : state.usage.costUsd + e.costUsd,
      };
      break;
    case "tool-start":
      state.usage = { ...state.usage, toolCalls: state.usage.toolCalls + 1 };
      break;
    case "source-add": {
      const s = e.source as Record<string, unknown> | undefined;
      if (s && typeof s.id === "string") {
        state.sources = new Map(state.sources);
        state.sources.set(s.id, {
          id: s.id,
          kind: str(s.kind),
          title: str(s.title) || str(s.url) || str(s.path) || s.id,
          ...(typeof s.url === "string" ? { url: s.url } : {}),
          ...(typeof s.path === "string" ? { path: s.path } : {}),
          ...(typeof s.fetchedAt === "string" ? { fetchedAt: s.fetchedAt } : {}),
          ...(typeof s.publishedAt === "string" ? { publishedAt: s.publishedAt } : {}),
        });
      }
      break;
    }
    case "evidence-add": {
      const ev = e.evidence as Record<string, unknown> | undefined;
      if (ev && typeof ev.id === "string") {
        const item: EvidenceView = {
          id: ev.id,
          sourceId: str(ev.sourceId),
          text: str(ev.text),
          ...(typeof ev.query === "string" ? { query: ev.query } : {}),
        };
        // A resumed run replays its journal and records the same evidence again.
        state.evidence = upsert(state.evidence, item);
      }
      break;
    }
    case "warning":
      state.warnings = [...state.warnings, { code: str(e.code), message: str(e.message), seq: event.seq }];
      break;
    case "section-written":
      state.sections = upsert(state.sections, {
        id: str(e.sectionId),
        title: str(e.title),
        citations: num(e.citations),
        chars: num(e.chars),
      });
      state.writing = state.writing.filter((id) => id !== str(e.sectionId));
      break;
    case "outline-update":
    case "draft-snapshot": {
      const items = outlineItems(e.outline);
      if (items.length > 0) state.outline = items;
      break;
    }
    case "step-end":
      state.steps = [
        ...state.steps,
        {
          label: `Step ${num(e.step)}: ${num(e.toolCalls)} tool calls, ${num(e.failed)} failed`,
          seq: event.seq,
        },
      ];
      break;
    case "trajectory-step":
      state.steps = [...state.steps, { label: `Step ${num(e.step)}: ${str(e.action)}`, seq: event.seq }];
      break;
    case "plan-refine":
      state.steps = [
        ...state.steps,
        { label: `Plan refined at step ${num(e.step)}${e.forced ? " (forced)" : ""}`, seq: event.seq },
      ];
      break;
    case "plan-review":
      state.review = {
        requestedAt: event.ts,
        deadline: str(e.deadline),
        proposed: planTitles(e.plan),
        answer: null,
      };
      break;
    case "plan-reviewed": {
      if (!state.review) break;
      const c = e.changes as Record<string, unknown> | undefined;
      state.review = {
        ...state.review,
        answer: {
          action: str(e.action),
          items: e.plan ? planTitles(e.plan) : null,
          changes: c
            ? {
                added: strings(c.added),
                removed: strings(c.removed),
                reworded: strings(c.reworded),
                reordered: c.reordered === true,
              }
            : null,
          reason: str(e.reason),
          at: event.ts,
        },
      };
      break;
    }
    case "report-ready":
      state.reportFormats = Array.isArray(e.formats) ? e.formats.filter((f) => typeof f === "string") : [];
      break;
    case "run-end":
      state.status = str(e.status) || "completed";
      state.stopReason = str(e.stopReason);
      state.endedAt = event.ts;
      state.phase = state.status;
      state.usage = usageOf(e.usage) ?? state.usage;
      state.writing = [];
      break;
  }
  return true;
}

/** Fraction of the run done, 0–1: plan nodes settled, else the phase. */
export function progressOf(state: RunState): number {
  // Stopped after its plan: nothing researched yet.
  if (state.status === "awaiting-review") return 0.05;
  if (state.status !== "running") return 1;
  const live = state.plan.filter((n) => n.status !== "pruned");
  if (live.length > 0) {
    const settled = live.filter((n) => n.status === "done" || n.status === "failed").length;
    return Math.min(0.95, settled / live.length);
  }
  return state.count > 0 ? 0.1 : 0;
}

/** True when the run will send no more events. */
export function isFinished(state: RunState): boolean {
  return state.status !== "running";
}
