/**
 * Validation and deterministic repair of query rubrics: each item's category comes from an
 * explicit `category`, else its description prefix, else its weight; weights are clamped to the
 * category's range; the prefix is made to match; duplicate titles are dropped; a list over 20
 * items loses its lowest-priority items. What cannot be repaired (fewer than 7 items, no
 * positive item) is returned as problems.
 */

import {
  CATEGORY_PREFIX,
  CATEGORY_WEIGHTS,
  type RawRubricItem,
  RUBRIC_CATEGORIES,
  RUBRIC_MAX_ITEMS,
  RUBRIC_MIN_ITEMS,
  type RubricCategory,
  type RubricItem,
} from "./rubric-types.ts";

/** Result of {@link repairRubricItems}. */
export interface RubricRepair {
  items: RubricItem[];
  /** What was changed, one line each. */
  repairs: string[];
  /** What is still wrong; empty when the rubric is valid. */
  problems: string[];
}

const PREFIX = /^\s*(key|important|optional|error)\s+criteri(?:on|a)\s*[:：]\s*/i;

function categoryOf(value: string | undefined): RubricCategory | null {
  const word = value?.trim().toLowerCase().split(/\s+/)[0] ?? "";
  return (RUBRIC_CATEGORIES as readonly string[]).includes(word) ? (word as RubricCategory) : null;
}

function categoryFromWeight(weight: number): RubricCategory {
  if (weight < 0) return "error";
  if (weight >= 4.5) return "key";
  if (weight >= 2.5) return "important";
  return "optional";
}

function fitWeight(category: RubricCategory, weight: number): number {
  const { min, max } = CATEGORY_WEIGHTS[category];
  if (!Number.isFinite(weight)) return category === "error" ? max : min;
  const magnitude = category === "error" ? -Math.abs(weight) : Math.abs(weight);
  return Math.min(max, Math.max(min, Math.round(magnitude)));
}

/** Problems of a list of (already normalized) items. */
export function rubricProblems(items: readonly RubricItem[]): string[] {
  const problems: string[] = [];
  if (items.length < RUBRIC_MIN_ITEMS || items.length > RUBRIC_MAX_ITEMS) {
    problems.push(`a rubric has ${RUBRIC_MIN_ITEMS}-${RUBRIC_MAX_ITEMS} items, this one has ${items.length}`);
  }
  if (!items.some((item) => item.weight > 0)) problems.push("a rubric needs at least one positive item");
  items.forEach((item, i) => {
    const { min, max } = CATEGORY_WEIGHTS[item.category];
    if (item.weight < min || item.weight > max) {
      problems.push(
        `item ${i + 1} ("${item.title}"): weight ${item.weight} outside ${min}..${max} for ${item.category}`,
      );
    }
    if (!item.description.startsWith(`${CATEGORY_PREFIX[item.category]}:`)) {
      problems.push(
        `item ${i + 1} ("${item.title}"): description does not start with "${CATEGORY_PREFIX[item.category]}:"`,
      );
    }
  });
  return problems;
}

/** Normalizes and repairs raw items; see the module comment for the rules. */
export function repairRubricItems(raw: readonly RawRubricItem[]): RubricRepair {
  const repairs: string[] = [];
  const items: RubricItem[] = [];
  const seen = new Set<string>();
  raw.forEach((entry, i) => {
    const n = i + 1;
    const rawDescription = (entry.description ?? "").trim();
    const prefixCategory = categoryOf(PREFIX.exec(rawDescription)?.[1]);
    const body = rawDescription.replace(PREFIX, "").trim();
    let title = (entry.title ?? "").trim();
    if (title === "" && body === "") {
      repairs.push(`item ${n}: dropped (no title and no description)`);
      return;
    }
    if (title === "") {
      title = body
        .split(/\s+/)
        .slice(0, 6)
        .join(" ")
        .replace(/[.,;:]$/, "");
      repairs.push(`item ${n}: title taken from the description`);
    }
    const key = title.toLowerCase().replace(/\s+/g, " ");
    if (seen.has(key)) {
      repairs.push(`item ${n} ("${title}"): dropped as a duplicate title`);
      return;
    }
    seen.add(key);
    const explicit = categoryOf(entry.category);
    const weight = Number(entry.weight);
    const category = explicit ?? prefixCategory ?? categoryFromWeight(Number.isFinite(weight) ? weight : 1);
    if (explicit && prefixCategory && explicit !== prefixCategory) {
      repairs.push(`item ${n} ("${title}"): category "${explicit}" kept over the prefix "${prefixCategory}"`);
    }
    const fitted = fitWeight(category, weight);
    if (fitted !== weight)
      repairs.push(`item ${n} ("${title}"): weight ${entry.weight} → ${fitted} (${category})`);
    const description = `${CATEGORY_PREFIX[category]}: ${body === "" ? title : body}`;
    if (description !== rawDescription)
      repairs.push(`item ${n} ("${title}"): description prefix set to "${CATEGORY_PREFIX[category]}"`);
    items.push({ title, description, weight: fitted, category });
  });
  let kept = items;
  if (kept.length > RUBRIC_MAX_ITEMS) {
    // Drop optional items first, then important, then error items; key items last; later items first.
    const priority: Record<RubricCategory, number> = { optional: 0, important: 1, error: 2, key: 3 };
    const order = kept
      .map((item, index) => ({ item, index }))
      .sort((a, b) => priority[a.item.category] - priority[b.item.category] || b.index - a.index);
    const drop = new Set(order.slice(0, kept.length - RUBRIC_MAX_ITEMS).map((o) => o.index));
    for (const index of [...drop].sort((a, b) => a - b)) {
      repairs.push(`item "${kept[index]!.title}" dropped: a rubric has at most ${RUBRIC_MAX_ITEMS} items`);
    }
    kept = kept.filter((_, index) => !drop.has(index));
  }
  return { items: kept, repairs, problems: rubricProblems(kept) };
}
