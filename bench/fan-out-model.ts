/**
 * The fan-out world's model for the orchestration benchmark: it answers every request with
 * content valid for the JSON schema the request carries, of random width — plans of one to
 * many nodes, outlines of many sections, query and action lists of random length, stop flags
 * (done, synthesize, no further retrieval) at random — so the strategies' schedulers meet the
 * plans a weak model might make, not the fixed-width plans of the scripted model. Seeded: a
 * seed gives the same answers to the same requests in the same order.
 *
 * The schema tells what to produce; the request's own text supplies what must refer to the run:
 * node ids (`T-3`) and evidence ids (`E12`) it names, result URLs it shows (pages to read), the
 * words of the question (search queries, so the real-page corpus answers them), and, for the
 * page reader, sentences copied from the page (its evidence must be verbatim). Free text is
 * random words; a text answer (a section, a sub-report) is a few sentences citing ids the
 * request shows.
 */

import type { Reply } from "../test/fake-openai/types.ts";
import { seededRandom } from "../test/research/arbitrary-model.ts";
import type { ChatBody } from "../test/research/model-script.ts";
import { contentText, json, userText } from "../test/research/replies.ts";
import { terms } from "./drb-pages.ts";

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
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  description?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

/** Filler words of free text. */
const WORDS =
  "adoption growth survey cost region figures policy market trend supply demand risk outlook evidence analysis percent change drivers".split(
    " ",
  );

/** Items an array gets beyond its minimum at most (plans, outlines and lists fan out up to this). */
export const EXTRA_ITEMS = 5;

/** How often an optional property is given. */
const OPTIONAL_SHARE = 0.7;

/** Properties whose text a reader sees as prose: written as cited sentences. */
const PROSE = new Set(["content", "report", "text", "introduction", "conclusion", "answer"]);

/** What a request refers to: the ids, URLs, question words and page sentences it shows. */
export interface RequestContext {
  nodeIds: string[];
  evidenceIds: string[];
  urls: string[];
  /** Section positions it names (`section-2.1`). */
  sectionIds: string[];
  /** Words of the question (else of the whole request), for queries. */
  queryTerms: string[];
  /** Sentences of the page a reader request shows. */
  pageSentences: string[];
}

const unique = <T>(xs: Iterable<T>): T[] => [...new Set(xs)];

/** What `text` (a request's non-system messages) refers to. */
export function requestContext(text: string): RequestContext {
  const page = /=====\s*BEGIN UNTRUSTED PAGE TEXT[^\n]*\n([\s\S]*?)\n=====\s*END/.exec(text)?.[1] ?? "";
  const question =
    /<question>\s*([\s\S]*?)\s*<\/question>/.exec(text)?.[1] ??
    /(?:Research question|Overall question|Question):\s*(.+)/.exec(text)?.[1] ??
    text.replace(page, "");
  const pageSentences = page
    .replace(/^Title:.*$/m, "")
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 30 && s.length <= 400);
  const listed = unique([...text.matchAll(/^\s*\[(E\d+)\]/gm)].map((m) => m[1]!));
  return {
    nodeIds: unique(text.match(/\bT-\d+\b/g) ?? []),
    // Ids a list shows (`[E3] …` lines) are the ones to cite; else any the request names.
    evidenceIds: listed.length ? listed : unique(text.match(/\bE\d+\b/g) ?? []),
    sectionIds: unique(text.match(/\bsection-\d+(?:\.\d+)*/g) ?? []),
    urls: unique((text.replace(page, "").match(/https?:\/\/[^\s<>"'\])]+\/page\/\d+/g) ?? []) as string[]),
    queryTerms: unique(terms(question)).filter((t) => t.length > 2),
    pageSentences,
  };
}

/** Generates schema instances for one request. */
class FanOutContent {
  private readonly random: () => number;
  private readonly context: RequestContext;

  constructor(random: () => number, context: RequestContext) {
    this.random = random;
    this.context = context;
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  private words(min = 1, max = 200): string {
    let text = "";
    const target = Math.min(max, Math.max(min, this.int(8, 60)));
    while (text.length < target) text += (text ? " " : "") + this.pick(WORDS);
    return text.slice(0, max);
  }

  /** A search query: two to four words of the question, sometimes with a filler word. */
  private query(): string {
    const pool = this.context.queryTerms.length ? this.context.queryTerms : WORDS;
    const n = this.int(2, 4);
    const chosen = Array.from({ length: n }, () => this.pick(pool));
    if (this.random() < 0.3) chosen.push(this.pick(WORDS));
    return unique(chosen).join(" ");
  }

  /** A new node id (a number above every id the request shows). */
  private freshNodeId(): string {
    const top = Math.max(0, ...this.context.nodeIds.map((id) => Number(id.slice(2))));
    const id = `T-${top + 1}`;
    this.context.nodeIds.push(id);
    return id;
  }

  /** What the items of an array under `key` are drawn from, when they refer to the run. */
  private pool(key: string, items: Schema): string[] | null {
    if (items.type !== "string") return null;
    if (key === "read" || items.format === "uri") return this.context.urls;
    if (key === "deps" || key === "actions") return this.context.nodeIds;
    if (items.pattern?.includes("E")) return this.context.evidenceIds;
    if (key === "evidence" && !items.pattern) return this.context.pageSentences;
    return null;
  }

  /** A random instance of `schema`, the value of property `key`. */
  value(schema: Schema, key = "", depth = 0): unknown {
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return this.pick(schema.enum);
    const choices = schema.anyOf ?? schema.oneOf;
    if (choices) {
      // An action that reads a URL is chosen only when the request shows one.
      const usable = choices.filter(
        (c) =>
          c.type !== "null" &&
          (this.context.urls.length > 0 ||
            !Object.values(c.properties ?? {}).some((p) => p.format === "uri")),
      );
      return this.value(this.pick(usable.length ? usable : choices), key, depth);
    }
    if (schema.allOf) return this.value(Object.assign({}, ...schema.allOf), key, depth);
    const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
    const type = types.length && types[0] ? this.pick(types) : schema.properties ? "object" : "string";
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {};
        const required = new Set(schema.required ?? []);
        for (const [name, sub] of Object.entries(schema.properties ?? {}))
          if (required.has(name) || this.random() < OPTIONAL_SHARE)
            out[name] = this.value(sub, name, depth + 1);
        return out;
      }
      case "array":
        return this.array(schema, key, depth);
      case "integer":
      case "number": {
        if (key === "depth") return this.int(1, 3);
        const low = schema.minimum ?? 0;
        const high = Math.min(schema.maximum ?? 10, low + 10);
        return type === "integer"
          ? this.int(Math.ceil(low), Math.floor(high))
          : low + this.random() * (high - low);
      }
      case "boolean":
        return this.random() < 0.5;
      default:
        return this.string(schema, key);
    }
  }

  private array(schema: Schema, key: string, depth: number): unknown[] {
    const items = schema.items ?? {};
    const min = schema.minItems ?? 0;
    const max = Math.min(schema.maxItems ?? min + EXTRA_ITEMS, min + EXTRA_ITEMS, depth > 4 ? min : Infinity);
    const pool = this.pool(key, items);
    if (pool) {
      // Items that refer to the run: distinct ones the request shows (none when it shows none).
      const n = Math.min(pool.length, this.int(min, Math.max(min, max)));
      const left = [...pool];
      const chosen: unknown[] = Array.from(
        { length: n },
        () => left.splice(this.int(0, left.length - 1), 1)[0]!,
      );
      // Too few to refer to: the rest as the schema allows.
      while (chosen.length < min) chosen.push(this.value(items, "", depth + 1));
      return chosen;
    }
    let n = this.int(min, Math.max(min, max));
    // An empty list is often a stop (no actions, no queries): taken less often than others.
    if (n === 0 && max > 0 && this.random() < 0.7) n = 1;
    const itemKey = key === "queries" || key === "broadQueries" || key === "papers" ? "query" : key;
    return Array.from({ length: n }, () => this.value(items, itemKey, depth + 1));
  }

  private string(schema: Schema, key: string): string {
    const { nodeIds, evidenceIds, urls } = this.context;
    if (schema.format === "uri" || key === "url")
      return urls.length ? this.pick(urls) : "https://example.org/";
    if (schema.pattern?.includes("T-") || key === "nodeId")
      return nodeIds.length ? this.pick(nodeIds) : this.freshNodeId();
    if (key === "id" && /T-/.test(schema.description ?? ""))
      return nodeIds.length && this.random() < 0.5 ? this.pick(nodeIds) : this.freshNodeId();
    if (schema.pattern?.includes("E")) return evidenceIds.length ? this.pick(evidenceIds) : "E1";
    if (key === "query") return this.query();
    // A value the description spells out (`the section written: "section-1"`).
    const literal = /: "([^"]+)"$/.exec(schema.description ?? "")?.[1];
    if (literal) return literal;
    if (key === "position" && this.context.sectionIds.length) return this.pick(this.context.sectionIds);
    if (PROSE.has(key)) return this.text();
    if (schema.pattern?.includes("\\d{4}-\\d{2}-\\d{2}")) return `2025-0${this.int(1, 9)}-1${this.int(0, 9)}`;
    return this.words(schema.minLength ?? 1, schema.maxLength ?? 200);
  }

  /** A few sentences, most citing an evidence id the request shows. */
  text(): string {
    const { evidenceIds } = this.context;
    return Array.from({ length: this.int(2, 5) }, () => {
      const cite = evidenceIds.length && this.random() < 0.7 ? ` [${this.pick(evidenceIds)}]` : "";
      return `${this.words(30, 140)}${cite}.`;
    }).join(" ");
  }
}

/** The schema a structured request asks for, if any (OpenAI-compatible `response_format`). */
function requestedSchema(body: ChatBody): Schema | undefined {
  const format = (body as { response_format?: { type?: string; json_schema?: { schema?: Schema } } })
    .response_format;
  return format?.type === "json_schema" ? format.json_schema?.schema : undefined;
}

/** FNV-1a of `text`, from `seed`. */
function hash(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The fan-out model: a schema instance of random width for structured requests, cited sentences
 * otherwise. Each answer is drawn from the seed and the request's text (digits aside), so
 * concurrent requests get the same answers whatever order they arrive in.
 */
export function fanOutAnswers(seed: number): (body: ChatBody) => Reply {
  return (body) => {
    // Digits left out: ids, figures and the servers' ports differ with the order concurrent calls
    // end in and from run to run; the answer's shape should not.
    // So is what other agents had written when a step began (minddr's team memory).
    const text = body.messages
      .map((m) =>
        contentText(m.content)
          .replace(/<team-memory>[\s\S]*?<\/team-memory>/g, "")
          .replace(/\d+/g, ""),
      )
      .join("\u0000");
    const random = seededRandom(hash(seed, text));
    const content = new FanOutContent(random, requestContext(userText(body)));
    const schema = requestedSchema(body);
    return schema ? json(content.value(schema)) : { kind: "text", text: content.text() };
  };
}
