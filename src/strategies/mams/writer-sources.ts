/**
 * The sources as the report agent is shown them, numbered, and its superscript citations read
 * back (seed: App. C.8, "<sup>[1]</sup>" right after the cited term). Every report prompt lists
 * the passages the agent can see — those of the fragment, then those the memory's facts and the
 * report cite — as `[n] E4 — title — URL`; a `<sup>[n]</sup>` in its reply names the n-th listed
 * passage and is turned into that evidence id at once, so the report kept in the state cites
 * evidence ids only. Evidence ids written in a superscript (`<sup>[E4]</sup>`) are read as ids.
 * A number naming no listed passage is reported (the caller refuses the reply as a format error,
 * then drops the number): a report never keeps a citation that resolves to nothing.
 */

import type { EvidenceLookup } from "../../core/evidence-registry.ts";
import { sourceLocator } from "../../core/source.ts";
import type { MemoryFact } from "./memory.ts";
import { evidenceIdsIn } from "./protocol.ts";

/** The passages listed to the report agent, in order: entry n is `ids[n - 1]`. */
export interface SourceListing {
  ids: string[];
}

/**
 * The listing of one report prompt: the fragment's passages, then the memory's, then the
 * report's — only passages `shown` to the agents, so every number names retrieved evidence.
 */
export function listSources(
  fragment: string,
  memory: readonly MemoryFact[],
  report: string,
  shown: ReadonlySet<string>,
): SourceListing {
  const ids = new Set<string>([
    ...evidenceIdsIn(fragment),
    ...memory.flatMap((f) => f.evidence),
    ...evidenceIdsIn(report),
  ]);
  return { ids: [...ids].filter((id) => shown.has(id)) };
}

/** The listing as the report prompt shows it: one numbered line per passage. */
export function renderListing(listing: SourceListing, lookup: EvidenceLookup): string {
  if (!listing.ids.length) return "(none yet)";
  return listing.ids
    .map((id, i) => {
      const e = lookup.getEvidence(id);
      const source = e ? lookup.getSource(e.sourceId) : undefined;
      const title = source?.title ? ` — ${source.title.replace(/\s+/g, " ").slice(0, 100)}` : "";
      return `[${i + 1}] ${id}${title}${source ? ` — ${sourceLocator(source)}` : ""}`;
    })
    .join("\n");
}

/** A report with its superscript citations read. */
export interface ReadCitations {
  /** The report with every superscript turned into evidence ids (unknown numbers dropped). */
  text: string;
  /** Numbers that name no listed passage, in order of first use. */
  unknown: number[];
  /** Superscript citations read. */
  read: number;
}

const SUP = /[ \t]*<sup>\s*((?:\[[^\]<>]*\]\s*[,;]?\s*)+)<\/sup>/giu;
const ITEM = /\[([^\]<>]*)\]/gu;

/** Reads the `<sup>[n]</sup>` citations of `text` against the listing (see the module comment). */
export function readSupCitations(text: string, listing: SourceListing): ReadCitations {
  const unknown: number[] = [];
  let read = 0;
  const out = text.replace(SUP, (whole, inner: string) => {
    const ids: string[] = [];
    let understood = true;
    for (const [, list] of inner.matchAll(ITEM))
      for (const token of list!.split(/\s*[,;，]\s*/u).filter(Boolean)) {
        const id = /^E\d+$/i.exec(token.trim())?.[0]?.toUpperCase();
        const n = /^\d{1,4}$/.test(token.trim()) ? Number(token.trim()) : undefined;
        if (id) ids.push(id);
        else if (n !== undefined && listing.ids[n - 1]) ids.push(listing.ids[n - 1]!);
        else if (n !== undefined) {
          if (!unknown.includes(n)) unknown.push(n);
        } else understood = false;
      }
    if (!understood) return whole;
    read++;
    const unique = [...new Set(ids)];
    return unique.length ? ` [${unique.join(", ")}]` : "";
  });
  return { text: out, unknown, read };
}
