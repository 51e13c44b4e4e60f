/**
 * Live progress of a run on a terminal: one status line redrawn on stderr with the phase,
 * subtasks done/total, sources, tokens and cost, built from the run's events.
 */

import type { DossierEvent } from "../core/events.ts";
import { terminalLine } from "../core/terminal-text.ts";

/** Progress state folded from events. */
export interface ProgressState {
  phase: string;
  nodesTotal: number;
  nodesDone: number;
  sources: number;
  inputTokens: number;
  outputTokens: number;
  unknownTokens: boolean;
  costUsd: number;
  unknownCost: boolean;
  llmCalls: number;
  toolCalls: number;
  sections: number;
}

/** The state before any event. */
export function initialProgress(): ProgressState {
  return {
    phase: "starting",
    nodesTotal: 0,
    nodesDone: 0,
    sources: 0,
    inputTokens: 0,
    outputTokens: 0,
    unknownTokens: false,
    costUsd: 0,
    unknownCost: false,
    llmCalls: 0,
    toolCalls: 0,
    sections: 0,
  };
}

/** Folds one event into the state. */
export function applyEvent(state: ProgressState, e: DossierEvent): ProgressState {
  const s = { ...state };
  switch (e.type) {
    case "phase":
      s.phase = e.detail ? `${e.phase} (${e.detail})` : e.phase;
      break;
    case "plan-update": {
      const nodes = (e.graph as { nodes?: { type: string }[] } | undefined)?.nodes ?? [];
      s.nodesTotal = nodes.filter((n) => n.type !== "report").length;
      break;
    }
    case "node-end":
      s.nodesDone++;
      break;
    case "source-add":
      s.sources++;
      break;
    case "llm-end":
      s.llmCalls++;
      if (e.inputTokens === null || e.outputTokens === null) s.unknownTokens = true;
      else {
        s.inputTokens += e.inputTokens;
        s.outputTokens += e.outputTokens;
      }
      if (e.costUsd === null) s.unknownCost = true;
      else s.costUsd += e.costUsd;
      break;
    case "tool-end":
      s.toolCalls++;
      break;
    case "section-written":
      s.sections++;
      break;
  }
  return s;
}

/** The status line. */
export function formatProgress(s: ProgressState): string {
  const k = (n: number) =>
    n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
  const tokens = `${k(s.inputTokens)}+${k(s.outputTokens)}${s.unknownTokens ? "+?" : ""} tokens`;
  const cost = s.unknownCost
    ? s.costUsd > 0
      ? `≥$${s.costUsd.toFixed(3)}`
      : "cost ?"
    : `$${s.costUsd.toFixed(3)}`;
  const nodes = s.nodesTotal ? ` · subtasks ${s.nodesDone}/${s.nodesTotal}` : "";
  const sections = s.sections ? ` · sections ${s.sections}` : "";
  return `${terminalLine(s.phase)}${nodes}${sections} · ${s.sources} sources · ${s.llmCalls} model / ${s.toolCalls} tool calls · ${tokens} · ${cost}`;
}

/** A progress display that redraws one line on a terminal. */
export function createProgressLine(write: (text: string) => void, columns = 120) {
  let state = initialProgress();
  let last = "";
  return {
    update(e: DossierEvent) {
      state = applyEvent(state, e);
      const line = formatProgress(state).slice(0, Math.max(20, columns - 1));
      if (line !== last) {
        write(`\r\x1b[2K${line}`);
        last = line;
      }
    },
    done() {
      if (last) write("\r\x1b[2K");
    },
    state: () => state,
  };
}
