/**
 * The run's registry of Sources and Evidence: assigns stable ids (`S<n>`, `E<n>`) and
 * deduplicates repeats, so the same page or passage keeps one id for the whole run. A resumed
 * run gives every page and passage the id an earlier attempt gave it (ids assigned in arrival
 * order would otherwise differ when concurrent agents finish in another order), so the prompts
 * it rebuilds match the journaled ones.
 */

import { z } from "zod";
import { DossierError } from "./errors.ts";
import { createSequentialIds, type IdGenerator } from "./ids.ts";
import {
  type Evidence,
  type EvidenceInput,
  evidenceSchema,
  type Source,
  type SourceInput,
  sourceSchema,
} from "./source.ts";
import { normalizeUrl } from "./url.ts";

/** Read access to sources and evidence, all the citation pass needs. */
export interface EvidenceLookup {
  getSource(id: string): Source | undefined;
  getEvidence(id: string): Evidence | undefined;
}

/** Serialised registry, for checkpoints and the JSON bundle. */
export const registrySnapshotSchema = z.object({
  sources: z.array(sourceSchema),
  evidence: z.array(evidenceSchema),
});
/** Serialised registry. */
export type RegistrySnapshot = z.infer<typeof registrySnapshotSchema>;

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** The dedup key of a source: normalised URL, or kind + path + anchor. */
export function sourceKey(source: Pick<Source, "kind" | "url" | "path" | "anchor">): string {
  if (source.url) return `url:${normalizeUrl(source.url)}#${source.anchor ?? ""}`;
  return `${source.kind}:${source.path ?? ""}#${source.anchor ?? ""}`;
}

const evidenceKey = (sourceId: string, text: string) => `${sourceId}\u0000${squash(text)}`;

/**
 * Items in numeric id order. Ids are handed out in insertion order unless earlier ids were
 * restored, so only then is there anything to sort.
 */
function inIdOrder<T extends { id: string }>(items: T[], restored: boolean): T[] {
  return restored ? items.sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1))) : items;
}

/** Holds every source and evidence item of one run. */
export class EvidenceRegistry implements EvidenceLookup {
  readonly #ids: IdGenerator;
  readonly #sources = new Map<string, Source>();
  readonly #sourceByKey = new Map<string, string>();
  readonly #evidence = new Map<string, Evidence>();
  readonly #evidenceByKey = new Map<string, string>();
  /** Ids earlier attempts of the run gave, by source or evidence key. */
  readonly #earlier = new Map<string, string>();
  readonly #earlierIds = new Set<string>();

  /**
   * `earlier`: what earlier attempts of the run registered. A source or passage found again
   * gets its earlier id (when it is found again, not before); new ones get ids none of them had.
   */
  constructor(ids: IdGenerator = createSequentialIds(), earlier?: RegistrySnapshot) {
    this.#ids = ids;
    for (const s of earlier?.sources ?? []) this.#reserve(sourceKey(s), s.id);
    for (const e of earlier?.evidence ?? []) this.#reserve(evidenceKey(e.sourceId, e.text), e.id);
  }

  #reserve(key: string, id: string): void {
    if (this.#earlier.has(key) || this.#earlierIds.has(id)) return;
    this.#earlier.set(key, id);
    this.#earlierIds.add(id);
  }

  /** The id for a new item with `key`: its earlier id, or the next id no earlier attempt used. */
  #idFor(key: string, prefix: "S" | "E"): string {
    const earlier = this.#earlier.get(key);
    if (earlier && !this.#sources.has(earlier) && !this.#evidence.has(earlier)) return earlier;
    let id = this.#ids.next(prefix);
    while (this.#earlierIds.has(id)) id = this.#ids.next(prefix);
    return id;
  }

  /** Adds a source, or returns the existing one with the same key. */
  addSource(input: SourceInput): { source: Source; added: boolean } {
    if (!input.url && !input.path) {
      throw new DossierError("INPUT_INVALID", "a source needs a url or a path", { details: { input } });
    }
    const key = sourceKey(input);
    const existing = this.#sourceByKey.get(key);
    if (existing) return { source: this.#sources.get(existing)!, added: false };
    const source: Source = { ...input, id: this.#idFor(key, "S") };
    this.#sources.set(source.id, source);
    this.#sourceByKey.set(key, source.id);
    return { source, added: true };
  }

  /** Adds evidence of a known source, or returns the same passage already held. */
  addEvidence(input: EvidenceInput): { evidence: Evidence; added: boolean } {
    if (!this.#sources.has(input.sourceId)) {
      throw new DossierError("INPUT_INVALID", `evidence names unknown source ${input.sourceId}`);
    }
    const text = input.text.trim();
    if (!text) throw new DossierError("INPUT_INVALID", "evidence text is empty");
    const key = evidenceKey(input.sourceId, text);
    const existing = this.#evidenceByKey.get(key);
    if (existing) return { evidence: this.#evidence.get(existing)!, added: false };
    const evidence: Evidence = { ...input, text, id: this.#idFor(key, "E") };
    this.#evidence.set(evidence.id, evidence);
    this.#evidenceByKey.set(key, evidence.id);
    return { evidence, added: true };
  }

  /** The source with this id. */
  getSource(id: string): Source | undefined {
    return this.#sources.get(id);
  }

  /** The evidence with this id. */
  getEvidence(id: string): Evidence | undefined {
    return this.#evidence.get(id);
  }

  /** All sources in id order. */
  sources(): Source[] {
    return inIdOrder([...this.#sources.values()], this.#earlierIds.size > 0);
  }

  /** All evidence in id order. */
  evidence(): Evidence[] {
    return inIdOrder([...this.#evidence.values()], this.#earlierIds.size > 0);
  }

  /** Evidence items of one source. */
  evidenceOf(sourceId: string): Evidence[] {
    return this.evidence().filter((e) => e.sourceId === sourceId);
  }

  /** A serialisable copy. */
  snapshot(): RegistrySnapshot {
    return { sources: this.sources(), evidence: this.evidence() };
  }

  /** Rebuilds a registry from a snapshot; later ids continue after the highest restored id. */
  static fromSnapshot(snapshot: RegistrySnapshot): EvidenceRegistry {
    const parsed = registrySnapshotSchema.parse(snapshot);
    const max = (items: { id: string }[]) => items.reduce((m, x) => Math.max(m, Number(x.id.slice(1))), 0);
    const registry = new EvidenceRegistry(
      createSequentialIds({ S: max(parsed.sources), E: max(parsed.evidence) }),
    );
    for (const s of parsed.sources) {
      registry.#sources.set(s.id, s);
      registry.#sourceByKey.set(sourceKey(s), s.id);
    }
    for (const e of parsed.evidence) {
      registry.#evidence.set(e.id, e);
      registry.#evidenceByKey.set(evidenceKey(e.sourceId, e.text), e.id);
    }
    return registry;
  }
}
