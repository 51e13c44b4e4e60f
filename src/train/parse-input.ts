/**
 * Validation at the training module's boundaries: a zod schema applied to outside data, its
 * failure turned into one `INPUT_INVALID` DossierError naming the fields.
 */

import { z } from "zod";
import { DossierError } from "../core/errors.ts";

/** `schema.parse(value)`, or an INPUT_INVALID error that starts with `what`. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new DossierError(
    "INPUT_INVALID",
    `${what}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ")}`,
  );
}
