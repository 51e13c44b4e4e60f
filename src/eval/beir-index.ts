/**
 * Indexing a BEIR corpus into a corpus index for retrieval evaluation: one document per corpus
 * entry (its title, a newline, its text) as a single chunk, written in batches.
 */

import type { CorpusIndex, DocumentInput } from "../tools/corpus/index.ts";
import { readBeirCorpus } from "./beir.ts";

/** Writes every document of the BEIR `corpus.jsonl` at `corpusFile` to `index`; returns the count. */
export async function indexBeirCorpus(
  index: CorpusIndex,
  corpusFile: string,
  batchSize = 1000,
): Promise<number> {
  let batch: DocumentInput[] = [];
  let count = 0;
  for await (const doc of readBeirCorpus(corpusFile)) {
    const text = doc.title ? `${doc.title}\n${doc.text}` : doc.text;
    batch.push({
      path: doc.id,
      kind: "text",
      title: doc.title,
      contentHash: "",
      size: text.length,
      mtimeMs: 0,
      chunks: [{ text, anchor: "", headingPath: [] }],
    });
    count++;
    if (batch.length >= batchSize) {
      index.write(batch);
      batch = [];
    }
  }
  if (batch.length) index.write(batch);
  return count;
}
