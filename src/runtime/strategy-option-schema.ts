/**
 * A strategy's options as JSON Schema properties, and what each allows in words: what the CLI
 * reads an `--option key=value` as, what an invalid option's error says is allowed, and what
 * the new-research form draws.
 */

import { z } from "zod";

/** One option's JSON Schema (the input side of the strategy's `optionsSchema`). */
export type OptionProperty = Record<string, unknown>;

/** The options of `schema` by name, in declaration order; empty when it is not an object schema. */
export function optionProperties(schema: z.ZodType): Record<string, OptionProperty> {
  try {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
      properties?: Record<string, OptionProperty>;
    };
    return json.properties ?? {};
  } catch {
    return {};
  }
}

/** True when the option takes text only (a string or a choice of strings): its value is never JSON. */
export function takesText(property: OptionProperty | undefined): boolean {
  return property?.type === "string";
}

const finite = (v: unknown): v is number => typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER;

/** A number range in words: "from 1 to 1000", "≥ 0", "> 0 and ≤ 1". */
function range(p: OptionProperty): string {
  const low = finite(p.minimum)
    ? `≥ ${p.minimum}`
    : finite(p.exclusiveMinimum)
      ? `> ${p.exclusiveMinimum}`
      : "";
  const high = finite(p.maximum)
    ? `≤ ${p.maximum}`
    : finite(p.exclusiveMaximum)
      ? `< ${p.exclusiveMaximum}`
      : "";
  if (finite(p.minimum) && finite(p.maximum)) return ` from ${p.minimum} to ${p.maximum}`;
  return [low, high].filter(Boolean).length ? ` ${[low, high].filter(Boolean).join(" and ")}` : "";
}

/** What an option allows, in words (e.g. "an integer from 1 to 1000", "one of json, native"). */
export function allowedValues(p: OptionProperty): string {
  if (Array.isArray(p.enum)) return `one of ${p.enum.map(String).join(", ")}`;
  if (p.const !== undefined) return JSON.stringify(p.const);
  if (Array.isArray(p.anyOf)) {
    const items = p.anyOf as OptionProperty[];
    if (items.every((i) => i.const !== undefined))
      return `one of ${items.map((i) => String(i.const)).join(", ")}`;
    return items.map(allowedValues).join(", or ");
  }
  if (Array.isArray(p.type)) return p.type.map((type) => allowedValues({ ...p, type })).join(", or ");
  switch (p.type) {
    case "integer":
      return `an integer${range(p)}`;
    case "number":
      return `a number${range(p)}`;
    case "boolean":
      return "true or false";
    case "string":
      return "text";
    case "array":
      return `a JSON array${p.items ? ` (each ${allowedValues(p.items as OptionProperty)})` : ""}`;
    case "object": {
      const props = Object.entries((p.properties ?? {}) as Record<string, OptionProperty>);
      if (props.length === 0) return "a JSON object";
      const required = new Set((p.required ?? []) as string[]);
      const fields = props.map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${allowedValues(v)}`);
      return `a JSON object {${fields.join("; ")}}`;
    }
    default:
      return "a JSON value";
  }
}
