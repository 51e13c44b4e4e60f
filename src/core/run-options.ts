/**
 * Options of one run (stored with the run record).
 */

import { z } from "zod";
import { budgetLimitsSchema } from "./budget.ts";
import { REPORT_FORMATS } from "./report-formats.ts";

/** Which sources a run may use. */
export const sourcesSchema = z.enum(["web", "local", "both", "local-only"]);

/** Options of one run. Strategy-specific options are kept as given. */
export const runOptionsSchema = z
  .object({
    strategy: z.string().min(1),
    sources: sourcesSchema.default("web"),
    /** `auto` = the query's language. */
    language: z.string().default("auto"),
    formats: z.array(z.enum(REPORT_FORMATS)).default(["md"]),
    budget: budgetLimitsSchema.default({}),
    /** YYYY-MM-DD; default the clock's date at run start. */
    currentDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional(),
    concurrency: z.number().int().min(1).max(64).default(4),
  })
  .catchall(z.unknown());

/** Options of one run. */
export type RunOptions = z.infer<typeof runOptionsSchema>;
/** Options of one run as given (defaults not yet applied). */
export type RunOptionsInput = z.input<typeof runOptionsSchema>;
