/**
 * A preference row (rubrics paper §3.2): a query and two reports for it, the one human
 * annotators preferred (`accepted`) and the other (`rejected`). The rubric-generator reward
 * (Eq. 1–3) scores a generated rubric by whether it ranks them the same way.
 */

import { z } from "zod";

/** One preference row `{id?, query, accepted, rejected}`. */
export const preferenceRowSchema = z.looseObject({
  id: z
    .union([z.string().min(1), z.number()])
    .transform(String)
    .optional(),
  query: z.string().min(1),
  /** The preferred report (Markdown). */
  accepted: z.string().min(1),
  /** The less preferred report (Markdown). */
  rejected: z.string().min(1),
});
/** One preference row. */
export type PreferenceRow = z.infer<typeof preferenceRowSchema>;
