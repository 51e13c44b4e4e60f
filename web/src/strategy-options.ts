/**
 * The new-research form's strategy options, pure: a label per option and the typed
 * `strategyOptions` of a run from the text of the fields (an empty field is left to the
 * strategy's default; a json option's field holds JSON; the server validates the rest against
 * the strategy's own schema).
 */

import type { StrategyOption } from "./api.ts";

/** `maxTurns` → `Max turns`, `topK` → `Top k`. */
export function optionLabel(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The hint under a field: its description, limits and default. */
export function optionHint(o: StrategyOption): string {
  const limits =
    o.minimum !== undefined && o.maximum !== undefined
      ? `${o.minimum}–${o.maximum}`
      : o.minimum !== undefined
        ? `at least ${o.minimum}`
        : o.maximum !== undefined
          ? `at most ${o.maximum}`
          : "";
  const parts = [
    o.description ?? "",
    o.type === "json" ? `JSON: ${o.allowed ?? "a JSON value"}` : "",
    limits,
    o.default !== undefined ? `default ${String(o.default)}` : "",
  ].filter(Boolean);
  return parts.join("; ");
}

/** The options of the fields' text, and a message per field whose text is not a valid value. */
export function optionValues(
  options: readonly StrategyOption[],
  text: Readonly<Record<string, string>>,
): { values: Record<string, unknown>; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const o of options) {
    const raw = (text[o.name] ?? "").trim();
    if (raw === "") continue;
    const label = optionLabel(o.name);
    if (o.type === "integer" || o.type === "number") {
      const n = Number(raw);
      if (!Number.isFinite(n) || (o.type === "integer" && !Number.isInteger(n))) {
        problems.push(`${label}: expected ${o.type === "integer" ? "a whole number" : "a number"}`);
      } else if ((o.minimum !== undefined && n < o.minimum) || (o.maximum !== undefined && n > o.maximum)) {
        problems.push(
          `${label}: expected ${optionHint({ ...o, description: undefined, default: undefined })}`,
        );
      } else values[o.name] = n;
    } else if (o.type === "json") {
      try {
        values[o.name] = JSON.parse(raw);
      } catch {
        problems.push(`${label}: expected JSON (${o.allowed ?? "a JSON value"})`);
      }
    } else if (o.type === "boolean") {
      if (raw === "true" || raw === "false") values[o.name] = raw === "true";
      else problems.push(`${label}: expected yes or no`);
    } else if (o.enum && !o.enum.includes(raw)) {
      problems.push(`${label}: expected one of ${o.enum.join(", ")}`);
    } else values[o.name] = raw;
  }
  return { values, problems };
}
