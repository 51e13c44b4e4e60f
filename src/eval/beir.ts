/**
 * Loaders of retrieval data in BEIR format: `corpus.jsonl` (one `{"_id", "title", "text"}` per
 * line), `queries.jsonl` (one `{"_id", "text"}` per line) and qrels TSV (`query-id`,
 * `corpus-id`, `score`, with a header line; TREC's four-column `qid iter docid rel` is
 * accepted too). Numeric ids are read as strings. A malformed line is INPUT_INVALID naming the
 * file and line; a missing file is NOT_FOUND.
 */

import { createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import { createInterface } from "node:readline";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";

/** A document of a BEIR corpus. */
export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

const id = z.union([z.string().min(1), z.number()]).transform(String);
const documentSchema = z.object({ _id: id, title: z.string().nullish(), text: z.string().nullish() });
const querySchema = z.object({ _id: id, text: z.string() });

async function* lines(path: string): AsyncGenerator<[number, string]> {
  try {
    await access(path);
  } catch (cause) {
    throw new DossierError("NOT_FOUND", `cannot read ${path}: ${(cause as Error).message}`, {
      cause,
      details: { path },
    });
  }
  const reader = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
  let n = 0;
  for await (const line of reader) {
    n++;
    if (line.trim() !== "") yield [n, line];
  }
}

function invalid(path: string, line: number, message: string): DossierError {
  return new DossierError("INPUT_INVALID", `${path} line ${line}: ${message}`, { details: { path, line } });
}

function parseJsonLine<T>(path: string, n: number, line: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw invalid(path, n, "not valid JSON");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(path, n, `${issue?.path.join(".") || "value"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** Reads a BEIR `corpus.jsonl`, one document at a time. */
export async function* readBeirCorpus(path: string): AsyncGenerator<BeirDocument> {
  for await (const [n, line] of lines(path)) {
    const doc = parseJsonLine(path, n, line, documentSchema);
    yield { id: doc._id, title: doc.title ?? "", text: doc.text ?? "" };
  }
}

/** Loads a BEIR `queries.jsonl`: query id → text. */
export async function loadBeirQueries(path: string): Promise<Map<string, string>> {
  const queries = new Map<string, string>();
  for await (const [n, line] of lines(path)) {
    const query = parseJsonLine(path, n, line, querySchema);
    queries.set(query._id, query.text);
  }
  return queries;
}

/** Loads qrels: query id → (document id → grade). */
export async function loadQrels(path: string): Promise<Map<string, Map<string, number>>> {
  const qrels = new Map<string, Map<string, number>>();
  let first = true;
  for await (const [n, line] of lines(path)) {
    const fields = line.includes("\t") ? line.split("\t").map((f) => f.trim()) : line.trim().split(/\s+/);
    const header = first && !/^-?\d+(\.\d+)?$/.test(fields[fields.length - 1] ?? "");
    first = false;
    if (header) continue;
    if (fields.length !== 3 && fields.length !== 4) {
      throw invalid(
        path,
        n,
        `expected query-id, corpus-id and score separated by tabs, got ${fields.length} fields`,
      );
    }
    const [query, doc, grade] = fields.length === 3 ? fields : [fields[0], fields[2], fields[3]];
    const score = Number(grade);
    if (!query || !doc || !Number.isFinite(score)) throw invalid(path, n, `bad judgment "${line}"`);
    let judgments = qrels.get(query);
    if (!judgments) {
      judgments = new Map();
      qrels.set(query, judgments);
    }
    judgments.set(doc, score);
  }
  return qrels;
}
