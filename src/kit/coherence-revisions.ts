/**
 * Applying the coherence editor's revisions to a written draft without breaking citations. A
 * revision replaces the opening or closing paragraph of one section (where the transitions
 * between sections live). It is applied only when it keeps every citation of the paragraph it
 * replaces and cites nothing the section did not already cite; tables, lists and fallback
 * sections are never rewritten. The introduction and conclusion may cite only ids the draft
 * cites; any other id is removed from them.
 */

import type { WrittenSection } from "./section-writer.ts";

/** One paragraph revision proposed by the editor. */
export interface ParagraphRevision {
  sectionId: string;
  part: "opening" | "closing";
  text: string;
}

/** A revision that was not applied, and why. */
export interface RejectedRevision {
  sectionId: string;
  part: "opening" | "closing";
  reason: string;
}

/** The draft after the revisions. */
export interface RevisedDraft {
  /** The sections in the given order; revised ones are new objects. */
  sections: WrittenSection[];
  applied: { sectionId: string; part: "opening" | "closing" }[];
  rejected: RejectedRevision[];
}

const ID_GROUP = /\[\s*(E\d+(?:\s*[,;，、]\s*E\d+)*)\s*\]/giu;
const LEAD_AND_GROUP = /([ \t]*)\[\s*(E\d+(?:\s*[,;，、]\s*E\d+)*)\s*\]/giu;

/** Evidence ids cited in a text as `[E1]` or `[E1, E2]`, upper-cased, in order. */
export function citedEvidenceIds(text: string): string[] {
  const ids: string[] = [];
  for (const m of text.matchAll(ID_GROUP))
    for (const id of m[1]!.split(/\s*[,;，、]\s*/)) {
      const upper = id.toUpperCase();
      if (!ids.includes(upper)) ids.push(upper);
    }
  return ids;
}

/** `text` with every cited id outside `allowed` removed (and groups left empty dropped). */
export function restrictCitations(text: string, allowed: ReadonlySet<string>): string {
  return text.replace(LEAD_AND_GROUP, (_whole, lead: string, list: string) => {
    const kept = list.split(/\s*[,;，、]\s*/).filter((id) => allowed.has(id.toUpperCase()));
    return kept.length ? `${lead}[${kept.join(", ")}]` : "";
  });
}

function paragraphs(content: string): string[] {
  return content
    .trim()
    .split(/\n[ \t]*\n/)
    .filter((p) => p.trim() !== "");
}

function isProse(paragraph: string): boolean {
  const first = paragraph.trimStart();
  return !/^(\||#|[-*+] |\d+[.)] |>|```|~~~)/.test(first);
}

/** Applies the revisions that keep citations intact; reports the others. */
export function applyRevisions(
  sections: readonly WrittenSection[],
  revisions: readonly ParagraphRevision[],
): RevisedDraft {
  const byId = new Map(sections.map((s) => [s.sectionId, s]));
  const revisedContent = new Map<string, string[]>();
  const done = new Set<string>();
  const applied: RevisedDraft["applied"] = [];
  const rejected: RejectedRevision[] = [];

  for (const r of revisions) {
    const reject = (reason: string) => rejected.push({ sectionId: r.sectionId, part: r.part, reason });
    const key = `${r.sectionId}/${r.part}`;
    const section = byId.get(r.sectionId);
    if (!section) {
      reject("no such section");
      continue;
    }
    if (section.fallback || !section.content.trim()) {
      reject("the section has no written text");
      continue;
    }
    if (done.has(key)) {
      reject("revised twice");
      continue;
    }
    const paras = revisedContent.get(r.sectionId) ?? paragraphs(section.content);
    const index = r.part === "opening" ? 0 : paras.length - 1;
    if (r.part === "closing" && paras.length === 1 && done.has(`${r.sectionId}/opening`)) {
      reject("the section has a single paragraph, already revised");
      continue;
    }
    const original = paras[index]!;
    const text = r.text.trim();
    if (!isProse(original) || !isProse(text) || /\n[ \t]*\n/.test(text)) {
      reject("only a prose paragraph can be replaced by one prose paragraph");
      continue;
    }
    const sectionIds = new Set(citedEvidenceIds(section.content));
    const revisedIds = citedEvidenceIds(text);
    const foreign = revisedIds.filter((id) => !sectionIds.has(id));
    if (foreign.length) {
      reject(`cites ${foreign.join(", ")}, which the section does not cite`);
      continue;
    }
    const lost = citedEvidenceIds(original).filter((id) => !revisedIds.includes(id));
    if (lost.length) {
      reject(`drops the citation(s) ${lost.join(", ")}`);
      continue;
    }
    paras[index] = text;
    revisedContent.set(r.sectionId, paras);
    done.add(key);
    applied.push({ sectionId: r.sectionId, part: r.part });
  }

  return {
    sections: sections.map((s) => {
      const paras = revisedContent.get(s.sectionId);
      return paras ? { ...s, content: paras.join("\n\n") } : s;
    }),
    applied,
    rejected,
  };
}
