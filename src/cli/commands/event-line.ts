/**
 * One line per event for `dossier runs events`: the sequence number, time, type and scope, then
 * what matters of that event type. Untrusted text (the question, page and model text) is shown
 * with its control characters escaped.
 */

import type { DossierEvent } from "../../core/events.ts";
import { terminalLine } from "../../core/terminal-text.ts";

/** A one-line summary of an event for `runs events`: control characters shown escaped. */
export function formatEvent(e: DossierEvent): string {
  return terminalLine(describeEvent(e));
}

const excerpt = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function describeEvent(e: DossierEvent): string {
  const t = e.ts.slice(11, 23);
  const head = `${String(e.seq).padStart(5)} ${t} ${e.type.padEnd(15)}${e.scope ? ` [${e.scope}]` : ""}`;
  switch (e.type) {
    case "llm-end":
      return `${head} ${e.role} ${e.model} ${e.ok ? "ok" : `FAILED ${e.error?.code}`} in=${e.inputTokens ?? "?"} out=${e.outputTokens ?? "?"} ${e.latencyMs}ms${e.replayed ? " (replayed)" : ""}${e.formatErrors ? ` format-errors=${e.formatErrors}` : ""}`;
    case "tool-end":
      return `${head} ${e.tool}/${e.provider ?? "-"} ${e.ok ? "ok" : `FAILED ${e.error?.code}`}${e.cached ? " (cached)" : ""} ${e.latencyMs}ms${e.resultCount !== undefined ? ` results=${e.resultCount}` : ""}${e.note ? ` ${e.note}` : ""}`;
    case "tool-start":
      return `${head} ${e.tool}/${e.provider ?? "-"} ${JSON.stringify(e.args).slice(0, 100)}`;
    case "llm-start":
      return `${head} ${e.role} ${e.model}`;
    case "llm-call":
      return `${head} ${e.callId} ${e.role} step ${e.step}: ${e.messages.length} new messages, ${e.completion.length} chars${e.formatErrors.length ? ` format-errors=${e.formatErrors.length}` : ""}`;
    case "phase":
      return `${head} ${e.phase}${e.detail ? ` (${e.detail})` : ""}`;
    case "node-start":
      return `${head} ${e.nodeId} ${e.nodeType} "${e.title}"`;
    case "node-end":
      return `${head} ${e.nodeId} ${e.status}${e.summary ? ` — ${e.summary}` : ""}`;
    case "decision":
      return `${head} ${e.decision}: ${e.reason}`;
    case "run-end":
      return `${head} ${e.status}: ${e.stopReason}`;
    case "section-written":
      return `${head} ${e.sectionId} "${e.title}" ${e.chars} chars, ${e.citations} citations`;
    case "warning":
      return `${head} ${e.code}: ${e.message}`;
    case "format-error":
      return `${head} ${e.role} attempt ${e.attempt}${e.reask === false ? " (last)" : ""}: ${e.error.slice(0, 120)}`;
    case "claims-verified": {
      const share = (k: string) => `${Math.round((e.shares[k] ?? 0) * 100)}%`;
      return `${head} ${e.mode}: ${e.claims} claims (${e.judged} judged), supported ${share("supported")}, partial ${share("partial")}, unsupported ${share("unsupported")}, unchecked ${share("unchecked")}`;
    }
    case "report-diff":
      return `${head} version ${e.version} of ${e.refreshOf}: ${e.sectionsChanged.length ? `${e.sectionsChanged.length} section(s) rewritten (${e.sectionsChanged.join(", ")}), claims +${e.claimsAdded} -${e.claimsRemoved}, citations +${e.citationsAdded} -${e.citationsRemoved}` : "no change, nothing rewritten"}`;
    case "claim-revised":
      return `${head} claim ${e.claim} ${e.action === "drop" ? "dropped" : "revised"}: ${e.before.slice(0, 60)}${e.action === "drop" ? "" : ` → ${e.after.slice(0, 60)}`}`;
    case "format-repair":
      return `${head} ${e.role} attempt ${e.attempt}: malformed JSON repaired`;
    case "node-pruned":
      return `${head} ${e.nodeId} pruned by the ${e.by === "planner" ? "planner" : "stop"}: ${e.reason}`;
    case "node-assessed":
      return `${head} ${e.nodeId} ${e.verdict} (iteration ${e.iteration}): ${e.reason}`;
    case "gate-verdict":
      return `${head} ${e.nodeId} ${e.verdict} (round ${e.round}): ${e.feedback}`;
    case "rubric-update":
      return `${head} ${e.kind} ${JSON.stringify(e.rubric).slice(0, 140)}`;
    case "plan-update": {
      const nodes = (e.graph as { nodes?: { status: string }[] })?.nodes ?? [];
      const d = e.diff as
        | { added?: string[]; pruned?: string[]; rewired?: string[]; ignored?: string[] }
        | undefined;
      const diff = d
        ? ` diff: +${d.added?.join(",") || "-"} pruned ${d.pruned?.join(",") || "-"} rewired ${d.rewired?.join(",") || "-"} ignored ${d.ignored?.join(",") || "-"}`
        : "";
      return `${head} iteration ${e.iteration}: ${nodes.length} nodes (${nodes.filter((n) => n.status === "done").length} done)${diff}`;
    }
    case "task-framed":
      return `${head} ${JSON.stringify(e.spec).slice(0, 140)}${e.assumptions?.length ? ` assumptions: ${e.assumptions.join("; ")}` : ""}`;
    case "run-start":
      return `${head} ${e.strategy}: ${e.query.slice(0, 100)}`;
    case "run-resume":
      return `${head} after ${e.previousStatus}: ${e.journaledSteps} journaled results replayed, ${Math.round(e.previousWallMs / 1000)} s spent before`;
    case "llm-retry":
      return `${head} ${e.role} ${e.model} attempt ${e.attempt} in ${e.delayMs}ms after ${e.error.code}: ${e.error.message}`;
    case "source-add": {
      const s = e.source as { id?: string; title?: string; url?: string; path?: string };
      return `${head} ${s.id ?? "?"} "${s.title ?? ""}" ${s.url ?? s.path ?? ""}`;
    }
    case "evidence-add": {
      const ev = e.evidence as { id?: string; sourceId?: string; text?: string };
      return `${head} ${ev.id ?? "?"} from ${ev.sourceId ?? "?"}: ${excerpt(ev.text ?? "", 100)}`;
    }
    case "outline-update": {
      const sections = (e.outline as { sections?: unknown[] })?.sections ?? [];
      return `${head} ${sections.length} sections${e.reason ? ` (${e.reason})` : ""}`;
    }
    case "xot-add":
      return `${head} ${e.agent} ${e.kind}: ${excerpt(e.text, 120)}`;
    case "step-end":
      return `${head} step ${e.step}: ${e.toolCalls} tool calls, ${e.failed} failed`;
    case "trajectory-step":
      return `${head} step ${e.step}: ${e.action}`;
    case "plan-refine":
      return `${head} step ${e.step}${e.forced ? " (forced)" : ""}`;
    case "context-reset":
      return `${head} step ${e.step}: ${e.droppedTurns} turns dropped, ${e.tokensBefore} → ${e.tokensAfter} tokens`;
    case "draft-snapshot":
      return `${head} draft ${e.index} at step ${e.step}, ${e.expansions} expansions, ${e.markdown.length} chars`;
    case "draft-scored":
      return `${head} draft ${e.index} by ${e.scorer}: ${e.score ?? "no score"}`;
    case "answer-ready":
      return `${head} ${e.verified ? "verified" : "unverified"}, ${e.evidence.length} evidence, ${e.steps} steps: ${excerpt(e.answer, 100)}`;
    case "plan-review":
      return `${head} ${e.plan.items.length} ${e.plan.kind} of ${e.plan.strategy} awaiting review until ${e.deadline}`;
    case "plan-reviewed":
      return `${head} ${reviewedLine(e)}`;
    case "report-ready":
      return `${head} ${e.formats.join(", ")}${e.paths?.length ? ` → ${e.paths.join(", ")}` : ""}`;
    default: {
      // An event type this version does not know (a newer store): its fields as JSON.
      const other = e as unknown as Record<string, unknown>;
      return `${head} ${JSON.stringify({ ...other, runId: undefined, seq: undefined, ts: undefined, type: undefined }).slice(0, 140)}`;
    }
  }
}

/** A plan review's answer in a few words: what an edit changed, a rejection's reason. */
function reviewedLine(e: Extract<DossierEvent, { type: "plan-reviewed" }>): string {
  if (e.action === "edit" && e.changes) {
    const c = e.changes;
    const moved = c.reordered ? ", reordered" : "";
    const retitled = c.retitled ? ", retitled" : "";
    const items = e.plan ? ` → ${e.plan.items.length} ${e.plan.kind}` : "";
    return `edit: +${c.added.length} -${c.removed.length}, ${c.reworded.length} reworded${moved}${retitled}${items}`;
  }
  if (e.reason) return `${e.action}: ${excerpt(e.reason, 100)}`;
  return e.action;
}
