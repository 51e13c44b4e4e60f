/**
 * File formats of `dossier eval preference` (JSON Lines, one object per line):
 *
 * - triples: `{"id": "q1", "query": "…", "preferred": <report>, "rejected": <report>}` where a
 *   report is its Markdown text or `{"path": "a.md"}` (relative to the triples file). An optional
 *   `"rubric"` holds a query rubric (`{query, items}`) or `{"path": "r.json"}` for the rubric scorer.
 * - scores: `{"id": "q1", "preferred": 0.72, "rejected": 0.41}`; a null score marks a failed
 *   scorer (the pair is counted as skipped).
 */

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { readJsonl } from "../race/jsonl.ts";
import { type QueryRubric, queryRubricSchema } from "../rubric/rubric-types.ts";
import type { ScoredPair } from "./preference-metrics.ts";

const pathRef = z.object({ path: z.string().min(1) });
const reportRef = z.union([z.string(), pathRef]);

/** One line of a triples file. */
export const preferenceTripleSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  query: z.string().min(1),
  preferred: reportRef,
  rejected: reportRef,
  rubric: z.union([queryRubricSchema, pathRef]).optional(),
});
/** One line of a triples file, as written. */
export type PreferenceTripleLine = z.infer<typeof preferenceTripleSchema>;

/** One line of a scores file. */
export const preferenceScoreSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  preferred: z.number().nullable(),
  rejected: z.number().nullable(),
});

/** A triple with its reports (and rubric, if any) loaded. */
export interface PreferenceTriple {
  id: string;
  query: string;
  preferred: string;
  rejected: string;
  rubric?: QueryRubric;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new DossierError("INPUT_INVALID", `cannot read ${path}: ${(error as Error).message}`, {
      details: { path },
      cause: error,
    });
  }
}

/** Reads a triples file, loading referenced reports and rubrics; duplicate ids are refused. */
export function loadTriples(path: string): PreferenceTriple[] {
  const base = dirname(path);
  const seen = new Set<string>();
  return readJsonl(path, preferenceTripleSchema).map((line) => {
    if (seen.has(line.id)) throw new DossierError("INPUT_INVALID", `${path}: duplicate id "${line.id}"`);
    seen.add(line.id);
    const report = (ref: z.infer<typeof reportRef>) =>
      typeof ref === "string" ? ref : readText(resolve(base, ref.path));
    let rubric: QueryRubric | undefined;
    if (line.rubric && "path" in line.rubric) {
      const file = resolve(base, line.rubric.path);
      const parsed = queryRubricSchema.safeParse(JSON.parse(readText(file)));
      if (!parsed.success)
        throw new DossierError("INPUT_INVALID", `${file}: not a rubric (${parsed.error.message})`);
      rubric = parsed.data;
    } else if (line.rubric) rubric = line.rubric;
    return {
      id: line.id,
      query: line.query,
      preferred: report(line.preferred),
      rejected: report(line.rejected),
      ...(rubric ? { rubric } : {}),
    };
  });
}

/** Reads a scores file. */
export function loadScores(path: string): ScoredPair[] {
  return readJsonl(path, preferenceScoreSchema);
}

/**
 * Pairs for the given triple ids from a scores file: an id without a score line becomes a pair
 * with null scores (counted as skipped); score lines for unknown ids are returned in `extra`.
 */
export function joinScores(
  ids: readonly string[],
  scores: readonly ScoredPair[],
): { pairs: ScoredPair[]; extra: string[] } {
  const byId = new Map(scores.map((s) => [s.id, s]));
  const wanted = new Set(ids);
  return {
    pairs: ids.map((id) => byId.get(id) ?? { id, preferred: null, rejected: null }),
    extra: scores.filter((s) => !wanted.has(s.id)).map((s) => s.id),
  };
}
