/**
 * A strategy's own options as a small list the new-research form can draw as labelled fields:
 * name, type, default, description and the limits, read from the JSON Schema of its
 * `optionsSchema`. Options the form cannot draw (objects, arrays, unions) are left out; the
 * server still validates whatever is sent against the strategy's schema.
 */

import { z } from "zod";

/** One option of a strategy. */
export const strategyOptionSchema = z.object({
  name: z.string(),
  type: z.enum(["integer", "number", "string", "boolean"]),
  default: z
    .union([z.number(), z.string(), z.boolean()])
    .optional()
    .describe("used when the option is absent"),
  description: z.string().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  enum: z.array(z.string()).optional().describe("the allowed values of a string option"),
});
/** One option of a strategy. */
export type StrategyOption = z.output<typeof strategyOptionSchema>;

const TYPES = new Set(["integer", "number", "string", "boolean"]);
/** A limit worth showing (zod's integers carry the safe-integer range as limits). */
const limit = (v: unknown) => typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER;

/** The options of `schema` the form can draw, in declaration order; empty when there are none. */
export function strategyOptions(schema: z.ZodType): StrategyOption[] {
  let json: { properties?: Record<string, Record<string, unknown>> };
  try {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as typeof json;
  } catch {
    return [];
  }
  const options: StrategyOption[] = [];
  for (const [name, p] of Object.entries(json.properties ?? {})) {
    if (typeof p.type !== "string" || !TYPES.has(p.type)) continue;
    const parsed = strategyOptionSchema.safeParse({
      name,
      type: p.type,
      ...(p.default !== undefined ? { default: p.default } : {}),
      ...(typeof p.description === "string" ? { description: p.description } : {}),
      ...(limit(p.minimum) ? { minimum: p.minimum } : {}),
      ...(limit(p.maximum) ? { maximum: p.maximum } : {}),
      ...(Array.isArray(p.enum) ? { enum: p.enum } : {}),
    });
    if (parsed.success) options.push(parsed.data);
  }
  return options;
}
