/**
 * A strategy's own options as a small list the new-research form can draw as labelled fields:
 * name, type, default, description and the limits, read from the JSON Schema of its
 * `optionsSchema`. An option no widget can draw (an object, an array, a union) is listed as
 * `json` with what it allows in words: the form takes it as JSON text, and the server
 * validates every option sent against the strategy's schema.
 */

import { z } from "zod";
import { allowedValues, optionProperties } from "../runtime/strategy-option-schema.ts";

/** One option of a strategy. */
export const strategyOptionSchema = z.object({
  name: z.string(),
  type: z
    .enum(["integer", "number", "string", "boolean", "json"])
    .describe("json: an object, array or union, given as JSON text"),
  default: z
    .union([z.number(), z.string(), z.boolean()])
    .optional()
    .describe("used when the option is absent"),
  description: z.string().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  enum: z.array(z.string()).optional().describe("the allowed values of a string option"),
  allowed: z.string().optional().describe("a json option: what it allows, in words"),
});
/** One option of a strategy. */
export type StrategyOption = z.output<typeof strategyOptionSchema>;

const TYPES = new Set(["integer", "number", "string", "boolean"]);
/** A limit worth showing (zod's integers carry the safe-integer range as limits). */
const limit = (v: unknown) => typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER;

/** The options of `schema`, in declaration order; empty when there are none. */
export function strategyOptions(schema: z.ZodType): StrategyOption[] {
  const options: StrategyOption[] = [];
  for (const [name, p] of Object.entries(optionProperties(schema))) {
    const description = typeof p.description === "string" ? { description: p.description } : {};
    const drawn =
      typeof p.type === "string" && TYPES.has(p.type)
        ? strategyOptionSchema.safeParse({
            name,
            type: p.type,
            ...(p.default !== undefined ? { default: p.default } : {}),
            ...description,
            ...(limit(p.minimum) ? { minimum: p.minimum } : {}),
            ...(limit(p.maximum) ? { maximum: p.maximum } : {}),
            ...(Array.isArray(p.enum) ? { enum: p.enum } : {}),
          })
        : null;
    options.push(
      drawn?.success ? drawn.data : { name, type: "json", ...description, allowed: allowedValues(p) },
    );
  }
  return options;
}
