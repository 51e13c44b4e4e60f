/**
 * The local-corpus branch of `dossier search --provider local`: a search of the corpus
 * `<home>/corpus/<name>.db` through the `local_search` tool (and so the ToolGateway). Prints a
 * numbered list (`path#anchor`, score, heading path, text), or with `--json` an array of
 * `{path, anchor, text, score}`. `hybrid` fuses BM25 with dense retrieval (the only case that
 * makes a network request: one embeddings call for the query).
 */

import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import {
  corpusEmbeddingSettings,
  createEmbeddingClient,
  DEFAULT_CORPUS,
  type LocalSearchHit,
  localSearchTool,
  openNamedCorpus,
  toolFailure,
} from "../../tools/corpus/index.ts";
import type { CliIo } from "../io.ts";
import { openCliServices } from "../services.ts";
import { type GlobalFlags, homeDir, loadCliConfig } from "../settings.ts";

/** Flags of a local search. */
export interface LocalSearchFlags extends GlobalFlags {
  corpus?: string;
  topK?: number;
  json?: boolean;
  /** Fuse BM25 with dense retrieval (the corpus must have been indexed with `--hybrid`). */
  hybrid?: boolean;
}

/** The numbered, human-readable list of local hits. */
export function formatLocalHits(hits: readonly LocalSearchHit[]): string {
  if (hits.length === 0) return "no results\n";
  const blocks = hits.map((hit, i) => {
    const locator = hit.anchor ? `${hit.path}#${hit.anchor}` : hit.path;
    const lines = [`${i + 1}. ${terminalLine(locator)}  (score ${hit.score.toFixed(4)})`];
    if (hit.headingPath) lines.push(`   ${terminalLine(hit.headingPath)}`);
    const text = terminalLine(hit.text.replace(/\s+/g, " ").trim());
    lines.push(`   ${text.length > 300 ? `${text.slice(0, 299)}…` : text}`);
    return lines.join("\n");
  });
  return `${blocks.join("\n\n")}\n`;
}

/** Runs a local search and prints its results. */
export async function runLocalSearch(io: CliIo, query: string, flags: LocalSearchFlags): Promise<void> {
  const loaded = loadCliConfig(io, flags);
  const name = flags.corpus ?? DEFAULT_CORPUS;
  const index = openNamedCorpus(homeDir(io, loaded), name);
  let services: ReturnType<typeof openCliServices> | undefined;
  try {
    services = openCliServices(io, flags);
    const embeddings = flags.hybrid
      ? createEmbeddingClient(corpusEmbeddingSettings(index, io.env, loaded.config))
      : undefined;
    const search = localSearchTool(services.gateway, {
      index,
      corpus: name,
      ...(embeddings ? { embeddings } : {}),
    });
    const result = await search(query, flags.topK !== undefined ? { topK: flags.topK } : {});
    if (!result.ok) throw toolFailure(result.error, { provider: "corpus", corpus: name });
    if (flags.json) {
      const plain = result.value.map(({ path, anchor, text, score }) => ({ path, anchor, text, score }));
      io.out(`${terminalJson(plain)}\n`);
    } else {
      io.out(formatLocalHits(result.value));
    }
  } finally {
    index.close();
    services?.close();
  }
}
