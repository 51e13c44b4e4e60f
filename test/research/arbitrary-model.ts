/**
 * An arbitrary-content model: for a structured call it answers a random instance of the JSON
 * schema the request carries (valid in form, meaningless in content), for a text call a few
 * random sentences with random citations. The harshest stand-in for a weak or local model: the
 * strategies must still keep their protocol's invariants with it. Seeded, so a failing seed can
 * be replayed.
 */

import type { Reply } from "../fake-openai/types.ts";
import type { ChatBody } from "./model-script.ts";
import { json } from "./replies.ts";

/** A JSON Schema node, as far as the generator reads it. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
}

const WORDS = [
  "topic",
  "adoption",
  "growth",
  "survey",
  "cost",
  "region",
  "figures",
  "policy",
  "market",
  "trend",
  "supply",
  "demand",
  "risk",
  "outlook",
  "evidence",
  "analysis",
  "2025",
  "percent",
  "change",
  "drivers",
];

/** A small seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Generates random instances of JSON schemas and random text. */
export class ArbitraryContent {
  private readonly random: () => number;

  constructor(random: () => number) {
    this.random = random;
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Random words, at least `minLength` characters and at most `maxLength`. */
  words(minLength = 1, maxLength = 200): string {
    let text = "";
    const target = Math.min(maxLength, Math.max(minLength, this.int(8, 60)));
    while (text.length < target) text += (text ? " " : "") + this.pick(WORDS);
    return text.slice(0, maxLength);
  }

  /** A string matching the few patterns the project's schemas use. */
  private patterned(pattern: string): string {
    if (pattern.includes("T-")) return `T-${this.int(1, 12)}`;
    if (pattern.includes("E")) return `E${this.int(1, 30)}`;
    if (pattern.includes("S")) return `S${this.int(1, 10)}`;
    if (pattern.includes("\\d{4}-\\d{2}-\\d{2}")) return `2025-0${this.int(1, 9)}-1${this.int(0, 9)}`;
    return this.words(1, 40);
  }

  /** A random instance of `schema`. */
  value(schema: Schema, depth = 0): unknown {
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return this.pick(schema.enum);
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices) return this.value(this.pick(choices.filter((c) => c.type !== "null")) ?? {}, depth);
    if (schema.allOf) return this.value(Object.assign({}, ...schema.allOf), depth);
    const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
    const type = types.length ? this.pick(types) : schema.properties ? "object" : "string";
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {};
        const required = new Set(schema.required ?? []);
        for (const [key, sub] of Object.entries(schema.properties ?? {})) {
          if (required.has(key) || this.random() < 0.5) out[key] = this.value(sub, depth + 1);
        }
        return out;
      }
      case "array": {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? min + 4, min + 4, depth > 3 ? min : Number.POSITIVE_INFINITY);
        return Array.from({ length: this.int(min, Math.max(min, max)) }, () =>
          this.value(schema.items ?? {}, depth + 1),
        );
      }
      case "integer":
      case "number": {
        const low =
          schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
        const high =
          schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 10);
        if (type === "integer") return this.int(Math.ceil(low), Math.floor(Math.max(low, high)));
        return low + this.random() * (Math.max(low, high) - low);
      }
      case "boolean":
        return this.random() < 0.5;
      default:
        if (schema.pattern) return this.patterned(schema.pattern);
        return this.words(schema.minLength ?? 1, schema.maxLength ?? 200);
    }
  }

  /** A few random sentences, some with citations of random evidence ids. */
  text(): string {
    return Array.from({ length: this.int(1, 4) }, () => {
      const cite = this.random() < 0.6 ? ` [E${this.int(1, 30)}]` : "";
      return `${this.words(20, 120)}${cite}.`;
    }).join(" ");
  }
}

/** The schema a structured request asks for, if any (OpenAI-compatible `response_format`). */
function requestedSchema(body: ChatBody): Schema | undefined {
  const format = (body as { response_format?: { type?: string; json_schema?: { schema?: Schema } } })
    .response_format;
  return format?.type === "json_schema" ? format.json_schema?.schema : undefined;
}

/** An answer model: a schema instance for structured requests, random text otherwise. */
export function arbitraryAnswers(seed: number): (body: ChatBody) => Reply {
  const content = new ArbitraryContent(seededRandom(seed));
  return (body) => {
    const schema = requestedSchema(body);
    return schema ? json(content.value(schema)) : { kind: "text", text: content.text() };
  };
}
