import { describe, expect, it } from "vitest";
import { z } from "zod";
import { schemaOutline } from "./schema-outline.ts";
import { schemaToJson } from "./structured-mode.ts";

const outline = (schema: z.ZodType) => schemaOutline(schemaToJson(schema));

describe("schemaOutline", () => {
  it("writes required and optional keys with their descriptions as comments", () => {
    const schema = z.object({
      thought: z.string().describe("what is known"),
      findings: z.array(z.string()).default([]).describe("key facts"),
      score: z.number().min(0).max(1).optional(),
      count: z.number().int().min(1),
    });
    expect(outline(schema)).toBe(
      [
        "{",
        "  thought: string // what is known",
        "  findings?: string[] // key facts",
        "  score?: number // 0–1",
        "  count: integer // min 1",
        "}",
      ].join("\n"),
    );
  });

  it("writes enums, constants, nulls and defaults with content", () => {
    const schema = z.object({
      verdict: z.enum(["yes", "no"]),
      kind: z.literal("search"),
      note: z.string().nullable(),
      depth: z.number().default(2),
    });
    expect(outline(schema)).toBe(
      [
        "{",
        '  verdict: "yes" | "no"',
        '  kind: "search"',
        "  note: string | null",
        "  depth?: number // default 2",
        "}",
      ].join("\n"),
    );
  });

  it("writes a union of objects one alternative per line, with array limits in words", () => {
    const action = z.discriminatedUnion("tool", [
      z.object({ tool: z.literal("web_search"), query: z.string().min(2).describe("a query") }),
      z.object({ tool: z.literal("read_page"), url: z.url().describe("a URL seen before") }),
    ]);
    const text = outline(z.object({ actions: z.array(action).max(5).describe("actions to run") }));
    expect(text).toBe(
      [
        "{",
        "  // actions to run; max 5 items",
        "  actions: Array<",
        "    | {",
        '      tool: "web_search"',
        "      query: string // a query",
        "    }",
        "    | {",
        '      tool: "read_page"',
        "      url: string // a URL seen before",
        "    }",
        "  >",
        "}",
      ].join("\n"),
    );
  });

  it("writes records, nested objects and key names that are not identifiers", () => {
    const schema = z.object({
      scores: z.record(z.string(), z.number()),
      "two words": z.object({ a: z.boolean() }),
      links: z.array(z.url()),
    });
    expect(outline(schema)).toBe(
      [
        "{",
        "  scores: { [key: string]: number }",
        '  "two words": {',
        "    a: boolean",
        "  }",
        "  links: string[]",
        "}",
      ].join("\n"),
    );
  });

  it("leaves the limits out where the description states its own numbers", () => {
    const schema = z.object({
      queries: z.array(z.string()).max(20).describe("up to 3 new queries (more are ignored)"),
      reads: z.array(z.string()).max(20).describe("pages to read"),
    });
    expect(outline(schema)).toBe(
      [
        "{",
        "  queries: string[] // up to 3 new queries (more are ignored)",
        "  reads: string[] // pages to read; max 20 items",
        "}",
      ].join("\n"),
    );
  });

  it("keeps what it cannot write as a type as JSON, so nothing is lost", () => {
    expect(schemaOutline({ $ref: "#/$defs/node" })).toBe('{"$ref":"#/$defs/node"}');
    expect(schemaOutline({ type: "object", properties: { any: {} } })).toBe("{\n  any?: any\n}");
  });

  it("is shorter than the JSON Schema it writes", () => {
    const schema = z.object({
      thought: z.string().describe("what you learned so far and what is still missing"),
      actions: z
        .array(
          z.discriminatedUnion("tool", [
            z.object({ tool: z.literal("web_search"), query: z.string() }),
            z.object({ tool: z.literal("read_page"), url: z.url(), goal: z.string() }),
          ]),
        )
        .max(5),
    });
    expect(outline(schema).length).toBeLessThan(JSON.stringify(schemaToJson(schema)).length * 0.7);
  });
});
