/**
 * The Report agent's writing stage, shared by the strategies that outline and write: outline,
 * one writer call per leaf section (concurrently) that sees — within a token budget per call —
 * the findings that served its section, the task's constraints and required outputs, then the
 * excerpts it may cite; the report's frame (title, introduction, conclusion); then assembly with
 * the citation pass and checks. The frame is written either after the sections by the coherence
 * pass, which reads the whole draft and may revise section openings and closings (the default),
 * or alongside them by the frame pass, which reads what each writer was given and saves the
 * model-call level after the sections (graph: its seed's Writer has no editor after it). Each
 * step has a fallback, so a report is written even when the model fails or the budget is spent.
 */

import PQueue from "p-queue";
import { isDossierError } from "../core/errors.ts";
import { createOutline, flattenOutline, type OutlineSection, outlineLeaves } from "../core/outline.ts";
import type { ReportDocument } from "../core/report.ts";
import type { Evidence } from "../core/source.ts";
import { estimateTokens } from "../llm/token-estimate.ts";
import { coherencePass } from "./coherence.ts";
import { rankEvidence, selectEvidence } from "./evidence-select.ts";
import { type Frame, framePass } from "./frame-pass.ts";
import { reportLabel } from "./language.ts";
import { type PlannedOutline, proposeOutline } from "./outliner.ts";
import { assembleReport, type ReportPart } from "./report-assembly.ts";
import type { RunContext } from "./run-context.ts";
import { type WrittenSection, writeSection } from "./section-writer.ts";
import { citedInFindings, type Finding, findingsForSection, type WriterSpec } from "./writer-brief.ts";

export type { Finding, WriterSpec } from "./writer-brief.ts";

/** Default prompt budget of one section-writer call (findings + excerpts), in tokens. */
export const DEFAULT_WRITER_PROMPT_TOKENS = 9000;
/** Tokens one excerpt takes at most in a writer's brief (360 characters plus its id). */
const EXCERPT_TOKENS = 130;
/**
 * Excerpts per section writer at most: the ones the outline and the findings point to first,
 * then others only when they share a word with the section's title or plan.
 */
export const DEFAULT_EVIDENCE_PER_SECTION = 12;

/** A section to fall back on when no outline can be made (e.g. a sub-report). */
export interface FallbackSection {
  title: string;
  text: string;
  allowed: ReadonlySet<string>;
}

/** Options of {@link writeReport}. */
export interface WriteReportOptions {
  title: string;
  language: string;
  /** The reasoning trace / findings the outline is built from. */
  trace: string;
  evidence: readonly Evidence[];
  fallbackSections: readonly FallbackSection[];
  stopReason: string;
  /** Guidance for the writer (e.g. a persistent rubric). */
  guidance?: string;
  /** A fixed outline to write (skips outlining). */
  outline?: PlannedOutline;
  /** Evidence per section. Default {@link DEFAULT_EVIDENCE_PER_SECTION}. */
  evidencePerSection?: number;
  /**
   * What the research found, per section: node summaries, sub-reports, consolidation notes
   * (conflicts, merged figures). Each writer sees the ones for its section within its budget.
   */
  findings?: Finding[];
  /** The task's constraints, required outputs and time scope, shown to every writer. */
  spec?: WriterSpec;
  /** Prompt budget of one section-writer call (findings + excerpts), in tokens. Default 9000. */
  promptTokens?: number;
  /**
   * When the title, introduction and conclusion are written: `"after"` the sections, by the
   * coherence pass reading the whole draft (default); or `"alongside"` them, by the frame pass
   * reading what each writer was given, issued with the section calls (no call after them).
   */
  frame?: "after" | "alongside";
}

/** Writes, assembles and checks the report. */
export async function writeReport(ctx: RunContext, options: WriteReportOptions): Promise<ReportDocument> {
  ctx.emit({ type: "phase", phase: "outlining" });
  const planned = options.outline ?? (await proposeOrFallBack(ctx, options));
  if (!planned) return fromFallback(ctx, options);
  if (!options.outline)
    ctx.emit({ type: "outline-update", outline: planned.outline, reason: "report outline" });

  const leaves = outlineLeaves(planned.outline);
  // Every writer's brief (findings and evidence) is chosen before any call is issued.
  const briefs = leaves.map((section) => ({ section, ...sectionBrief(options, planned, section) }));
  const { frame, sections } =
    options.frame === "alongside"
      ? await writeWithFramePass(ctx, options, planned, briefs)
      : await writeThenCohere(ctx, options, planned, briefs);
  return assembleReport(ctx, {
    title: frame?.title ?? planned.title,
    outline: planned.outline,
    parts: reportParts(planned, sections, frame, options.language),
    language: options.language,
    stopReason: options.stopReason,
  });
}

/** One section's writer brief, chosen before any writer call is issued. */
interface SectionBrief {
  section: OutlineSection;
  findings: Finding[];
  evidence: Evidence[];
}

/** The written sections and the report's frame (null: no frame, e.g. nothing was written). */
interface WrittenDraft {
  frame: Frame | null;
  sections: WrittenSection[];
}

/** The outline proposed from the trace; null (warning `OUTLINE_FALLBACK`) when the call fails. */
async function proposeOrFallBack(
  ctx: RunContext,
  options: WriteReportOptions,
): Promise<PlannedOutline | null> {
  try {
    return await ctx.inScope("outline", () =>
      proposeOutline(ctx, {
        trace: options.trace,
        evidence: options.evidence,
        language: options.language,
        ...(options.guidance ? { guidance: options.guidance } : {}),
      }),
    );
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    ctx.emit({
      type: "warning",
      code: "OUTLINE_FALLBACK",
      message: `outline failed (${isDossierError(error) ? error.code : "error"}); writing from the sub-reports`,
    });
    return null;
  }
}

/** One writer call per leaf section, concurrently (the run's concurrency), in outline order. */
function writeSections(
  ctx: RunContext,
  options: WriteReportOptions,
  planned: PlannedOutline,
  briefs: readonly SectionBrief[],
): Promise<WrittenSection[]> {
  const queue = new PQueue({ concurrency: ctx.options.concurrency });
  return Promise.all(
    briefs.map(({ section, findings, evidence }) =>
      queue.add(() =>
        ctx.inScope(`section:${section.id}`, async () => {
          if (evidence.length === 0)
            ctx.emit({
              type: "warning",
              code: "SECTION_NO_EVIDENCE",
              message: `section ${section.id} "${section.title}": no evidence of this run addresses it; its heading stands without text`,
            });
          const result = await writeSection(ctx, {
            outline: planned.outline,
            reportTitle: planned.title,
            section,
            evidence,
            language: options.language,
            findings,
            ...(options.spec ? { spec: options.spec } : {}),
            ...(options.guidance ? { guidance: options.guidance } : {}),
          });
          ctx.emit({
            type: "section-written",
            sectionId: section.id,
            title: section.title,
            chars: result.content.length,
            citations: (result.content.match(/\bE\d+\b/g) ?? []).length,
          });
          return result;
        }),
      ),
    ),
  );
}

/** The frame written alongside the sections, by the frame pass reading what each writer was given. */
async function writeWithFramePass(
  ctx: RunContext,
  options: WriteReportOptions,
  planned: PlannedOutline,
  briefs: readonly SectionBrief[],
): Promise<WrittenDraft> {
  ctx.emit({ type: "phase", phase: "writing", detail: `${briefs.length} sections and the report's frame` });
  // Issued before the section calls and outside their queue: it waits for none of them.
  const framing = ctx.inScope("coherence", () =>
    framePass(ctx, {
      title: planned.title,
      sections: briefs.map(({ section, findings, evidence }) => ({
        sectionId: section.id,
        title: section.title,
        plan: section.plan,
        findings,
        evidence,
      })),
      language: options.language,
      ...(options.guidance ? { guidance: options.guidance } : {}),
    }),
  );
  const [written, framed] = await Promise.all([writeSections(ctx, options, planned, briefs), framing]);
  // Nothing was written (every writer failed or wrote nothing): there is nothing to frame.
  return { frame: written.some((w) => w.content.trim()) ? framed : null, sections: written };
}

/** The sections first, then the coherence pass that reads the whole draft and writes the frame. */
async function writeThenCohere(
  ctx: RunContext,
  options: WriteReportOptions,
  planned: PlannedOutline,
  briefs: readonly SectionBrief[],
): Promise<WrittenDraft> {
  ctx.emit({ type: "phase", phase: "writing", detail: `${briefs.length} sections` });
  const written = await writeSections(ctx, options, planned, briefs);
  ctx.emit({ type: "phase", phase: "editing" });
  const coherence = await ctx.inScope("coherence", () =>
    coherencePass(ctx, {
      title: planned.title,
      sections: written,
      language: options.language,
      ...(options.guidance ? { guidance: options.guidance } : {}),
    }),
  );
  // The coherence pass may revise section openings and closings (citations kept intact).
  return { frame: coherence, sections: coherence?.sections ?? written };
}

/** The report's parts: the introduction, every outline section under its heading, the conclusion. */
function reportParts(
  planned: PlannedOutline,
  sections: readonly WrittenSection[],
  frame: Frame | null,
  language: string,
): ReportPart[] {
  const byId = new Map(sections.map((w) => [w.sectionId, w]));
  const union = new Set(sections.flatMap((w) => [...w.allowed]));
  const parts: ReportPart[] = [];
  if (frame) parts.push({ text: frame.introduction, allowed: union });
  for (const section of flattenOutline(planned.outline)) {
    const heading = `${"#".repeat(section.depth + 1)} ${section.title}`;
    const w: WrittenSection | undefined = byId.get(section.id);
    parts.push({
      text: w?.content ? `${heading}\n\n${w.content}` : heading,
      allowed: w?.allowed ?? new Set(),
    });
  }
  if (frame)
    parts.push({
      text: `## ${reportLabel("conclusion", language)}\n\n${frame.conclusion}`,
      allowed: union,
    });
  return parts;
}

/**
 * What one section's writer is given: the findings that served the section (within half the
 * call's budget), then the evidence its findings cite and the outline assigned, then relevant
 * others, as many as the rest of the budget holds.
 */
function sectionBrief(
  options: WriteReportOptions,
  planned: PlannedOutline,
  section: OutlineSection,
): { findings: Finding[]; evidence: Evidence[] } {
  const budget = options.promptTokens ?? DEFAULT_WRITER_PROMPT_TOKENS;
  const text = `${section.title} ${section.plan}`;
  const findings = findingsForSection({
    findings: options.findings ?? [],
    sectionId: section.id,
    text,
    maxTokens: Math.floor(budget / 2),
  });
  const findingTokens = findings.reduce((n, f) => n + estimateTokens(f.label) + estimateTokens(f.text), 0);
  const room = Math.max(4, Math.floor((budget - findingTokens) / EXCERPT_TOKENS));
  const evidence = selectEvidence({
    text,
    pool: options.evidence,
    preferred: preferredEvidence(options.evidence, text, [
      ...citedInFindings(findings),
      ...(planned.evidenceHints[section.id] ?? []),
    ]),
    limit: Math.min(options.evidencePerSection ?? DEFAULT_EVIDENCE_PER_SECTION, room),
    relevantOnly: true,
  });
  return { findings, evidence };
}

/**
 * The evidence a section writer should see first — what its findings cite and what the outline
 * assigned — ordered by relevance to the section (ties keep that order).
 */
function preferredEvidence(pool: readonly Evidence[], text: string, ids: readonly string[]): string[] {
  const byId = new Map(pool.map((e) => [e.id, e]));
  const chosen = [...new Set(ids)].map((id) => byId.get(id)).filter((e) => e !== undefined);
  return rankEvidence(text, chosen).map((e) => e.id);
}

/**
 * The report made of the fallback sections (e.g. the sub-reports), each citing only the evidence
 * it was written from: the report when no outline, or no writer, could be had.
 */
export function fromFallback(
  ctx: RunContext,
  options: Pick<WriteReportOptions, "title" | "language" | "fallbackSections" | "stopReason">,
): ReportDocument {
  const sections = options.fallbackSections.filter((s) => s.text.trim());
  const outline = createOutline(
    (sections.length ? sections : [{ title: options.title, text: "", allowed: new Set<string>() }]).map(
      (s) => ({
        title: s.title,
        plan: "findings of this subtask",
      }),
    ),
    { maxSections: 100 },
  );
  const parts: ReportPart[] = sections.map((s) => ({
    text: `## ${s.title}\n\n${s.text}`,
    allowed: s.allowed,
  }));
  return assembleReport(ctx, {
    title: options.title,
    outline,
    parts,
    language: options.language,
    stopReason: options.stopReason,
  });
}
