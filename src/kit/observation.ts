/**
 * How tool results are shown to a search agent: compact, numbered, with the evidence ids the
 * agent may cite, and fenced as data.
 */

import type { Evidence } from "../core/source.ts";
import type { ToolError } from "../tools/types.ts";

/** One action's outcome as the agent reads it. */
export interface Observation {
  /** e.g. `web_search "solid-state battery cost"`. */
  action: string;
  ok: boolean;
  error?: ToolError;
  /** Evidence recorded from this action. */
  evidence: Evidence[];
  /** Extra lines (results without evidence, a page summary). */
  lines: string[];
  /**
   * What an evidence item came from, shown before its excerpt (a search result's title and
   * URL), so a result and its snippet are one line instead of two.
   */
  heads?: Record<string, string>;
  /**
   * A search's results as the provider returned them, in order (with the evidence id a result
   * became, if any): for agents that show results in their own layout.
   */
  results?: ObservedResult[];
  /** A page read as the reader returned it: for agents that show it in their own layout. */
  reading?: { url: string; title: string; rationale: string; evidence: string[]; summary: string };
}

/** One search result of an {@link Observation}. */
export interface ObservedResult {
  title: string;
  url: string;
  snippet: string;
  publishedAt?: string;
  /** The evidence the result became; absent when it had no snippet. */
  evidenceId?: string;
}

const head = (o: Observation, id: string) => (o.heads?.[id] ? ` ${o.heads[id]}` : "");

/**
 * Renders an earlier step's observations without their excerpts (the agent read them in that
 * step; its findings carry what mattered): the action, the evidence ids with what they came
 * from, and the result lines.
 */
export function renderObservationsBrief(observations: readonly Observation[]): string {
  return observations
    .map((o) => {
      if (!o.ok) return `- ${o.action} → FAILED (${o.error?.code})`;
      const headed = o.evidence.filter((e) => o.heads?.[e.id]);
      const ids = o.evidence
        .filter((e) => !o.heads?.[e.id])
        .map((e) => e.id)
        .join(", ");
      return [
        `- ${o.action} → ${o.evidence.length} item(s)${ids ? `: ${ids}` : ""}`,
        ...headed.map((e) => `  [${e.id}]${head(o, e.id)}`),
        ...o.lines.map((l) => `  ${l}`),
      ].join("\n");
    })
    .join("\n");
}

/** Renders observations for the next step's prompt. */
export function renderObservations(observations: readonly Observation[], maxExcerpt = 280): string {
  return observations
    .map((o) => {
      if (!o.ok) return `- ${o.action} → FAILED (${o.error?.code}): ${o.error?.message ?? ""}`;
      const body = o.evidence.map((e) => {
        const text = e.text.replace(/\s+/g, " ").trim();
        const cut = text.length > maxExcerpt ? `${text.slice(0, maxExcerpt)}…` : text;
        // A URL ends its line, so no punctuation can be read as part of it.
        return `  [${e.id}]${head(o, e.id)}${o.heads?.[e.id] ? "\n    " : " "}${cut}`;
      });
      return [`- ${o.action} → ${o.evidence.length} item(s)`, ...o.lines.map((l) => `  ${l}`), ...body].join(
        "\n",
      );
    })
    .join("\n");
}
