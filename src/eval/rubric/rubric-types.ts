/**
 * Query-specific rubrics (seed: query-specific rubrics, §3.3 and Appendix C.1): 7–20 weighted
 * items in four categories — Key (weight 5), Important (3–4), Optional (1–2) and Error (−1 or −2,
 * a penalty for a common mistake or omission).
 */

import { z } from "zod";

/** Item categories. */
export const RUBRIC_CATEGORIES = ["key", "important", "optional", "error"] as const;
/** An item category. */
export type RubricCategory = (typeof RUBRIC_CATEGORIES)[number];

/** Fewest items a rubric has. */
export const RUBRIC_MIN_ITEMS = 7;
/** Most items a rubric has. */
export const RUBRIC_MAX_ITEMS = 20;

/** Allowed weights per category, inclusive. */
export const CATEGORY_WEIGHTS: Readonly<Record<RubricCategory, { min: number; max: number }>> = {
  key: { min: 5, max: 5 },
  important: { min: 3, max: 4 },
  optional: { min: 1, max: 2 },
  error: { min: -2, max: -1 },
};

/** The prefix a description starts with, per category. */
export const CATEGORY_PREFIX: Readonly<Record<RubricCategory, string>> = {
  key: "Key Criterion",
  important: "Important Criterion",
  optional: "Optional Criterion",
  error: "Error Criterion",
};

/** One stored rubric item. */
export const rubricItemSchema = z.object({
  title: z.string().min(1),
  /** Starts with the category prefix ("Key Criterion: …"). */
  description: z.string().min(1),
  weight: z.number(),
  category: z.enum(RUBRIC_CATEGORIES),
});
/** One rubric item. */
export type RubricItem = z.infer<typeof rubricItemSchema>;

/** A stored query rubric (the file `rubric generate` writes and `rubric score` reads). */
export const queryRubricSchema = z.object({
  query: z.string(),
  items: z.array(rubricItemSchema),
  /** The model that generated it, when generated. */
  model: z.string().optional(),
  generatedAt: z.string().optional(),
});
/** A query rubric. */
export type QueryRubric = z.infer<typeof queryRubricSchema>;

/** An item as a generator model writes it (the seed's format: title, description, weight). */
export const generatedItemSchema = z.object({
  title: z.string().describe("A short name of the criterion, 2 to 6 words."),
  description: z
    .string()
    .describe(
      "One sentence that starts with 'Key Criterion: ', 'Important Criterion: ', 'Optional Criterion: ' or 'Error Criterion: ' and states what to look for in the report.",
    ),
  weight: z.coerce
    .number()
    .describe("Key = 5; Important = 3 or 4; Optional = 1 or 2; Error = -1 or -2 (a penalty)."),
});
/** An item as a model (or a hand-written file) gives it; `category` may be missing. */
export type RawRubricItem = z.infer<typeof generatedItemSchema> & { category?: string };

/** Accepts `[...]` or an object wrapping the list (`{items|rubric|rubrics|criteria: [...]}`). */
export function unwrapItemList(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  for (const key of ["items", "rubric", "rubrics", "criteria"]) {
    if (Array.isArray(record[key])) return record[key];
  }
  return value;
}

/** What a generator model must return: a list of at least {@link RUBRIC_MIN_ITEMS} items. */
export const generatedRubricSchema = z.preprocess(
  unwrapItemList,
  z.array(generatedItemSchema).min(RUBRIC_MIN_ITEMS).describe("The rubric items."),
);
