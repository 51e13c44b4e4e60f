/**
 * A JSON Schema written as a compact type in TypeScript notation, for prompts. Models read such
 * types as well as JSON Schema, and they cost about a third of the characters: no `"type":`,
 * `"properties":` or `"required":` keys, descriptions as comments, limits in words. Every
 * structured call carries its schema, so this is a large share of the input tokens of a run.
 *
 * Covered: objects (required and optional keys, records), arrays, unions (`oneOf`/`anyOf`),
 * `enum`, `const`, `null`, strings (with `format`), numbers and integers (with bounds), booleans,
 * `default`. Anything else (e.g. `$ref`) falls back to its JSON text, so nothing is ever lost.
 */

import type { JSONSchema7 } from "ai";

type JSONSchema7Definition = JSONSchema7 | boolean;

const INDENT = "  ";

/** The schema as a type: `{ key: string, other?: number[] }`, comments on their own lines. */
export function schemaOutline(schema: JSONSchema7): string {
  return render(schema, "");
}

function isSchema(value: JSONSchema7Definition | undefined): value is JSONSchema7 {
  return typeof value === "object" && value !== null;
}

function literal(value: unknown): string {
  return JSON.stringify(value);
}

/** Limits and formats in words, for a comment. */
function notes(schema: JSONSchema7): string[] {
  const out: string[] = [];
  const range = (lo: number | undefined, hi: number | undefined, unit: string) => {
    const big = (n: number | undefined) => n !== undefined && Math.abs(n) >= Number.MAX_SAFE_INTEGER;
    const low = big(lo) ? undefined : lo;
    const high = big(hi) ? undefined : hi;
    if (low !== undefined && high !== undefined) out.push(`${low}–${high}${unit}`);
    else if (low !== undefined) out.push(`min ${low}${unit}`);
    else if (high !== undefined) out.push(`max ${high}${unit}`);
  };
  // A description that gives its own numbers ("up to 3 queries") states the limit the model
  // should keep; the schema's looser parsing bound would only contradict it.
  if (!/\d/.test(schema.description ?? "")) {
    range(schema.minimum, schema.maximum, "");
    range(schema.minItems, schema.maxItems, " items");
  }
  if (schema.exclusiveMinimum !== undefined) out.push(`> ${schema.exclusiveMinimum}`);
  if (schema.exclusiveMaximum !== undefined) out.push(`< ${schema.exclusiveMaximum}`);
  if (schema.format && !(schema.format === "uri" && /\bURL\b/.test(schema.description ?? "")))
    out.push(schema.format === "uri" ? "a URL" : schema.format);
  if (schema.maxLength !== undefined) out.push(`max ${schema.maxLength} characters`);
  // An optional key already says it may be left out; only a default with content is news.
  if (schema.default !== undefined && !isEmpty(schema.default))
    out.push(`default ${literal(schema.default)}`);
  return out;
}

function isEmpty(value: unknown): boolean {
  return (
    value === "" ||
    value === false ||
    value === null ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === "object" && value !== null && Object.keys(value).length === 0)
  );
}

/** The comment for a value: its description, then its limits. */
function comment(schema: JSONSchema7): string {
  return [schema.description, ...notes(schema)].filter(Boolean).join("; ");
}

function render(schema: JSONSchema7Definition, indent: string): string {
  if (schema === true) return "any";
  if (schema === false) return "never";
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return schema.enum.map(literal).join(" | ");
  const options = schema.oneOf ?? schema.anyOf;
  if (options) return union(options, indent);
  if (Array.isArray(schema.type)) return schema.type.join(" | ");
  const type = schema.type;
  switch (type) {
    case "string":
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return type;
    case "array":
      return array(schema, indent);
    case "object":
      return object(schema, indent);
    default:
      if (schema.properties) return object(schema, indent);
      if (Object.keys(schema).every((k) => k === "description" || k === "default")) return "any";
      return JSON.stringify(schema);
  }
}

/**
 * A multi-line object that is not a property (an array's items, a union's alternative) carries
 * its own description as a comment on its first line.
 */
function described(schema: JSONSchema7Definition, indent: string): string {
  const text = render(schema, indent);
  if (!isSchema(schema) || !schema.description || !text.startsWith("{\n")) return text;
  return `{ // ${schema.description.replace(/\s+/g, " ")}${text.slice(1)}`;
}

function union(options: JSONSchema7Definition[], indent: string): string {
  const parts = options.map((o) => described(o, indent + INDENT));
  if (parts.every((p) => !p.includes("\n"))) return parts.join(" | ");
  return `\n${parts.map((p) => `${indent}${INDENT}| ${p}`).join("\n")}`;
}

function array(schema: JSONSchema7, indent: string): string {
  const items = Array.isArray(schema.items) ? { anyOf: schema.items } : (schema.items ?? true);
  const inner = described(items as JSONSchema7Definition, indent);
  if (inner.startsWith("\n")) return `Array<${inner}\n${indent}>`;
  return /^[\w"]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
}

function object(schema: JSONSchema7, indent: string): string {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    return isSchema(extra) ? `{ [key: string]: ${render(extra, indent)} }` : "{}";
  }
  const required = new Set(schema.required ?? []);
  const inner = indent + INDENT;
  const lines = ["{"];
  for (const [key, value] of properties) {
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key);
    const optional = required.has(key) ? "" : "?";
    const type = render(value, inner);
    const note = (isSchema(value) ? comment(value) : "").replace(/\s+/g, " ");
    if (type.includes("\n")) {
      // A multi-line type: its comment goes on the line before it.
      if (note) lines.push(`${inner}// ${note}`);
      lines.push(`${inner}${name}${optional}: ${type.startsWith("\n") ? type.slice(1).trimStart() : type}`);
    } else lines.push(`${inner}${name}${optional}: ${type}${note ? ` // ${note}` : ""}`);
  }
  if (isSchema(extra)) lines.push(`${inner}[key: string]: ${render(extra, inner)}`);
  lines.push(`${indent}}`);
  return lines.join("\n");
}
