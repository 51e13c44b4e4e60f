/**
 * The articles file of a batch (DeepResearch Bench raw-data JSONL, `{id, prompt, article}`) and
 * the tag a batch's run carries in its stored options: which articles file and question it
 * answers. The run itself adds its article once it has ended `completed` — started by `dossier
 * batch` or resumed on its own (`dossier runs resume`, the API) — so a resumed batch run lands
 * in its batch's output like any other.
 */

import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import type { RunRecord } from "../core/run.ts";
import { renderMarkdown } from "../render/markdown.ts";
import type { ResearchRunOutcome } from "./research.ts";
import type { RunHandle } from "./run.ts";

/** The batch question a run answers. */
export const batchTagSchema = z.object({
  /** The articles file (an absolute path). */
  out: z.string().min(1),
  /** The question's id in the question file. */
  id: z.union([z.string(), z.number()]),
  /** The question as the file gives it (the article line repeats it). */
  prompt: z.string(),
});
/** The batch question a run answers. */
export type BatchTag = z.infer<typeof batchTagSchema>;

/** One line of the articles file. */
export interface ArticleLine {
  id: string | number;
  prompt: string;
  article: string;
}

/** The batch tag a stored run carries, if any. */
export function batchTagOf(record: RunRecord): BatchTag | null {
  const parsed = batchTagSchema.safeParse((record.options as { batch?: unknown }).batch);
  return parsed.success ? parsed.data : null;
}

/** Adds the article of the tagged question to its batch's articles file. */
export function appendBatchArticle(tag: BatchTag, article: string): void {
  const line: ArticleLine = { id: tag.id, prompt: tag.prompt, article };
  try {
    mkdirSync(dirname(tag.out), { recursive: true });
    appendFileSync(tag.out, `${JSON.stringify(line)}\n`);
  } catch (cause) {
    throw new DossierError(
      "INPUT_INVALID",
      `cannot add the article of question ${tag.id} to ${tag.out}: ${(cause as Error).message}`,
      { cause, details: { out: tag.out, id: tag.id } },
    );
  }
}

/**
 * The run of `handle` adding its article to the tagged batch's articles file once it has ended
 * `completed` (not when it was cancelled or failed, even with a report). `done` rejects with
 * INPUT_INVALID when the article cannot be written; the run stays completed.
 */
export function addingBatchArticle(
  handle: RunHandle<ResearchRunOutcome>,
  tag: BatchTag,
): RunHandle<ResearchRunOutcome> {
  const done = handle.done.then((result) => {
    if (result.record.status === "completed" && result.outcome)
      appendBatchArticle(tag, renderMarkdown(result.outcome.report));
    return result;
  });
  return { ...handle, done };
}

/** The JSON lines of a file (none when it does not exist); a line cut short by a crash is skipped. */
export function readJsonLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return [];
      }
    });
}
