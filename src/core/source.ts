/**
 * Sources (documents) and Evidence (exact passages of sources used by agents), with their
 * stored shapes.
 */

import { z } from "zod";

/** Where a source came from. */
export const sourceKindSchema = z.enum(["web", "local", "academic"]);
/** Where a source came from. */
export type SourceKind = z.infer<typeof sourceKindSchema>;

/** A document fetched or read during a run. */
export const sourceSchema = z.object({
  id: z.string().regex(/^S[1-9]\d*$/),
  kind: sourceKindSchema,
  url: z.string().optional(),
  path: z.string().optional(),
  /** `page=N` for a PDF page, a heading slug for Markdown/HTML. */
  anchor: z.string().optional(),
  title: z.string(),
  /** ISO timestamp of retrieval. */
  fetchedAt: z.string(),
  contentHash: z.string().optional(),
  publishedAt: z.string().optional(),
});
/** A document fetched or read during a run. */
export type Source = z.infer<typeof sourceSchema>;
/** A source before it has an id. */
export type SourceInput = Omit<Source, "id">;

/** Which tool call produced a piece of evidence. */
export const retrievedBySchema = z.object({ tool: z.string(), callId: z.string() });

/** A passage of a source that an agent used. */
export const evidenceSchema = z.object({
  id: z.string().regex(/^E[1-9]\d*$/),
  sourceId: z.string(),
  /** The exact excerpt, verbatim from the source text. */
  text: z.string(),
  /** The query or goal that led to it. */
  query: z.string().optional(),
  retrievedBy: retrievedBySchema,
  summary: z.string().optional(),
});
/** A passage of a source that an agent used. */
export type Evidence = z.infer<typeof evidenceSchema>;
/** Evidence before it has an id. */
export type EvidenceInput = Omit<Evidence, "id">;

/** How a source is cited: its URL, or its path with the `#anchor` when it has one. */
export function sourceLocator(source: Pick<Source, "url" | "path" | "anchor">): string {
  if (source.url) return source.url;
  const path = source.path ?? "";
  return source.anchor ? `${path}#${source.anchor}` : path;
}
