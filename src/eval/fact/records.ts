/**
 * FACT's file formats. Input reports: JSONL lines `{id, prompt?, article, language?}` (the
 * DeepResearch Bench raw-data format) or Markdown files. Validations: the benchmark's
 * `validated.jsonl` — per report the extracted `citations` (`[{fact, ref_idx, url}]`, or the
 * string "extraction failed") and `citations_deduped` keyed by URL: `{facts, url_content,
 * validate_res: [{idx (0-based), result}], validate_error}`.
 */

import { z } from "zod";
import { taskIdSchema } from "../race/records.ts";

/** One input report. */
export const factReportSchema = z.looseObject({
  id: taskIdSchema,
  prompt: z.string().optional(),
  article: z.string(),
  language: z.string().optional(),
});
/** One input report. */
export type FactReport = z.infer<typeof factReportSchema>;

/** A judgement of one statement. */
export const factVerdictSchema = z.looseObject({
  idx: z.number(),
  result: z.string(),
});
/** A judgement of one statement (`result`: supported, unsupported or unknown). */
export type FactVerdict = z.infer<typeof factVerdictSchema>;

/** The statements citing one URL and their judgements. */
export const factUrlGroupSchema = z.looseObject({
  facts: z.array(z.string()),
  url_content: z.string().nullable().optional(),
  validate_res: z.array(factVerdictSchema).default([]),
  validate_error: z.string().nullable().default(null),
});
/** The statements citing one URL and their judgements. */
export type FactUrlGroup = z.infer<typeof factUrlGroupSchema>;

/** One line of a validations file. */
export const factValidatedSchema = z.looseObject({
  id: taskIdSchema.optional(),
  prompt: z.string().optional(),
  citations: z.union([
    z.array(z.looseObject({ fact: z.string(), ref_idx: z.union([z.number(), z.string()]), url: z.string() })),
    z.string(),
  ]),
  citations_deduped: z.record(z.string(), factUrlGroupSchema).default({}),
});
/** One line of a validations file. */
export type FactValidated = z.infer<typeof factValidatedSchema>;
