/**
 * Which files the corpus ingests, by file name extension. Files without an extension
 * (`README`, `LICENSE`) are read as plain text; other extensions are not ingested.
 */

import { extname } from "node:path";
import type { DocumentKind } from "./types.ts";

/** Extensions (lower-case, with the dot) and the kind of document they hold. */
export const EXTENSION_KINDS: Readonly<Record<string, DocumentKind>> = {
  ".md": "markdown",
  ".markdown": "markdown",
  ".mdx": "markdown",
  ".txt": "text",
  ".text": "text",
  ".rst": "text",
  ".adoc": "text",
  ".org": "text",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".pdf": "pdf",
};

/** The kind of document a file name denotes, or null when the corpus does not ingest it. */
export function kindOfFile(name: string): DocumentKind | null {
  const ext = extname(name).toLowerCase();
  if (ext === "") return "text";
  return EXTENSION_KINDS[ext] ?? null;
}
