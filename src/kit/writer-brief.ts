/**
 * What a section writer learns besides its excerpts: the findings of the research that served
 * its section (node summaries, sub-reports, consolidation notes with conflicts and merged
 * figures) and the task's constraints and required outputs. Findings are chosen per section —
 * the ones tied to it first, then general ones by relevance — within a token budget, so one
 * writer call never grows with the size of the run.
 */

import { estimateTokens } from "../llm/token-estimate.ts";
import { rankEvidence } from "./evidence-select.ts";

/** A finding handed to the writers: a node summary, a sub-report or a consolidation note. */
export interface Finding {
  /** Where it comes from, e.g. `T-5 search "Battery costs"` or `subtask 2`. */
  label: string;
  /** The finding, possibly citing evidence ids such as `[E4]`. */
  text: string;
  /** Outline section ids it serves; absent = relevant to every section. */
  sections?: string[];
}

/** The task's requirements every writer must honour (from the router's specification). */
export interface WriterSpec {
  constraints?: string[];
  requiredOutputs?: string[];
  timeScope?: string;
}

/** Longest single finding in a writer prompt, in characters. */
export const MAX_FINDING_CHARS = 2400;

/** True when a finding tied to `sections` serves outline section `sectionId` (or its parent or child). */
export function servesSection(sections: readonly string[] | undefined, sectionId: string): boolean {
  if (!sections || sections.length === 0) return false;
  return sections.some(
    (s) => s === sectionId || sectionId.startsWith(`${s}.`) || s.startsWith(`${sectionId}.`),
  );
}

/**
 * The findings for one section, within `maxTokens`: those tied to the section first (in the
 * given order), then general findings ranked by relevance to `text`. Each is cut to
 * {@link MAX_FINDING_CHARS}.
 */
export function findingsForSection(options: {
  findings: readonly Finding[];
  sectionId: string;
  text: string;
  maxTokens: number;
}): Finding[] {
  const tied = options.findings.filter((f) => servesSection(f.sections, options.sectionId));
  const general = options.findings.filter((f) => !f.sections || f.sections.length === 0);
  const ranked = rankEvidence(
    options.text,
    general.map((f) => ({ finding: f, text: `${f.label} ${f.text}` })),
  ).map((x) => x.finding);
  const chosen: Finding[] = [];
  let used = 0;
  for (const f of [...tied, ...ranked]) {
    const text = f.text.length > MAX_FINDING_CHARS ? `${f.text.slice(0, MAX_FINDING_CHARS)}…` : f.text;
    const cost = estimateTokens(f.label) + estimateTokens(text) + 4;
    if (used + cost > options.maxTokens) continue;
    used += cost;
    chosen.push({ ...f, text });
  }
  return chosen;
}

/** Evidence ids cited in findings, in order of first appearance. */
export function citedInFindings(findings: readonly Finding[]): string[] {
  const ids = new Set<string>();
  for (const f of findings) for (const m of f.text.matchAll(/\bE\d+\b/g)) ids.add(m[0]);
  return [...ids];
}

/** The task requirements as prompt lines (empty when there are none). */
export function specLines(spec: WriterSpec | undefined): string[] {
  if (!spec) return [];
  const lines: string[] = [];
  if (spec.timeScope) lines.push(`Time scope: ${spec.timeScope}`);
  if (spec.constraints?.length) lines.push(`Constraints: ${spec.constraints.join("; ")}`);
  if (spec.requiredOutputs?.length)
    lines.push(
      `Required outputs (produce the ones this section is the natural place for, e.g. a Markdown table): ${spec.requiredOutputs.join("; ")}`,
    );
  return lines;
}

/** The findings as a fenced prompt block (empty when there are none). */
export function findingsBlock(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return [];
  return ["<findings>", ...findings.map((f) => `## ${f.label}\n${f.text.trim()}`), "</findings>"];
}
