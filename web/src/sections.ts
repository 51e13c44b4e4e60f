/**
 * The report as it is written, section by section, from the run's events: the outline
 * (`outline-update`, or a draft's outline with its text), the sections being written (events
 * in a `section:<id>` scope) and those written (`section-written`). Pure; the live view draws it.
 */

/** A section of the outline, with its draft text when the strategy records one. */
export interface OutlineItem {
  id: string;
  title: string;
  depth: number;
  text?: string;
}

/** Where a section is. */
export type SectionStatus = "pending" | "writing" | "written";

/** A written section's figures. */
export interface WrittenSection {
  id: string;
  title: string;
  citations: number;
  chars?: number;
}

/** A section as the live view shows it. */
export interface SectionView extends OutlineItem {
  status: SectionStatus;
  citations?: number;
  chars?: number;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The sections of an outline event's `outline` (`{ sections: [{ id, title, content?, children }] }`), flattened in document order. */
export function outlineItems(outline: unknown): OutlineItem[] {
  const items: OutlineItem[] = [];
  const walk = (sections: unknown, depth: number) => {
    if (!Array.isArray(sections) || depth > 6) return;
    for (const raw of sections) {
      if (!raw || typeof raw !== "object") continue;
      const s = raw as Record<string, unknown>;
      const id = str(s.id);
      if (!id) continue;
      const text = str(s.content).trim();
      items.push({ id, title: str(s.title), depth, ...(text ? { text } : {}) });
      walk(s.children, depth + 1);
    }
  };
  walk((outline as { sections?: unknown } | null | undefined)?.sections, 1);
  return items;
}

/** The section a `section:<id>` scope names, or null. */
export function sectionOfScope(scope: unknown): string | null {
  const m = typeof scope === "string" ? /^section:(.+)$/.exec(scope) : null;
  return m ? m[1]! : null;
}

/**
 * The sections in outline order with their status; written sections the outline does not name
 * follow it. A section with sub-sections is written when all of them are, and being written
 * while any of them is under way.
 */
export function sectionViews(
  outline: readonly OutlineItem[],
  writing: readonly string[],
  written: readonly WrittenSection[],
): SectionView[] {
  const done = new Map(written.map((w) => [w.id, w]));
  const busy = new Set(writing);
  const own = (id: string): SectionStatus =>
    done.has(id) ? "written" : busy.has(id) ? "writing" : "pending";
  const views: SectionView[] = outline.map((item, i) => {
    const children: OutlineItem[] = [];
    for (let j = i + 1; j < outline.length && outline[j]!.depth > item.depth; j++) children.push(outline[j]!);
    const leaves = children.filter((c, k) => !(children[k + 1] && children[k + 1]!.depth > c.depth));
    let status = own(item.id);
    if (status === "pending" && leaves.length > 0) {
      const states = leaves.map((l) => own(l.id));
      status = states.every((s) => s === "written")
        ? "written"
        : states.some((s) => s !== "pending")
          ? "writing"
          : "pending";
    }
    const w = done.get(item.id);
    return {
      ...item,
      status,
      ...(w ? { citations: w.citations, ...(w.chars !== undefined ? { chars: w.chars } : {}) } : {}),
    };
  });
  const known = new Set(outline.map((o) => o.id));
  for (const w of written) {
    if (known.has(w.id)) continue;
    views.push({
      id: w.id,
      title: w.title,
      depth: 1,
      status: "written",
      citations: w.citations,
      ...(w.chars !== undefined ? { chars: w.chars } : {}),
    });
  }
  return views;
}
