import { describe, expect, it } from "vitest";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { type ScriptStep, scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import type { ToolResult } from "../../tools/types.ts";
import { runFact } from "./runner.ts";

const ok = (text: string, title?: string): ToolResult<{ text: string; title?: string }> => ({
  ok: true,
  value: { text, ...(title ? { title } : {}) },
  cached: false,
  provider: "http",
  callId: "C1",
  latencyMs: 0,
});

const judge = (statements: string, reply: unknown): ScriptStep => ({
  match: (p: string) => p.includes(`<statements>\n${statements}\n</statements>`),
  reply: typeof reply === "string" ? { text: reply } : { json: reply },
});

describe("runFact", () => {
  it("extracts, dedupes, fetches each URL once, judges per URL and counts failures", async () => {
    const model = scriptedModel([
      // one verdict missing: re-asked
      judge("1. Prices rose.\n2. Imports grew.", [{ idx: 1, result: "supported" }]),
      judge("1. Prices rose.\n2. Imports grew.", [
        { idx: 2, result: "unknown" },
        { idx: 1, result: "supported" },
      ]),
      judge("1. Stocks fell.", [{ idx: 1, result: "unsupported" }]),
      judge("1. Exports fell.", [{ idx: 1, result: "supported" }]),
    ]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    const fetched: string[] = [];
    const result = await runFact({
      llm,
      reports: [
        {
          id: 1,
          prompt: "Rice markets in 2024",
          article:
            "Prices rose [1]. Stocks fell [2]. Imports grew [1]. Prices rose [1].\n\n## References\n[1] https://a.example - A\n[2] https://b.example - B",
        },
        { id: 2, article: "No citations here." },
        {
          id: 3,
          article:
            "Exports fell [1]. Output rose [2].\n\nReferences\n1. A. <https://a.example>\n2. Down. <https://down.example>",
        },
      ],
      fetchText: async (url) => {
        fetched.push(url);
        if (url === "https://down.example")
          return {
            ok: false,
            error: { code: "NETWORK_ERROR", message: "refused", retryable: true },
            provider: "http",
            callId: "C9",
            latencyMs: 0,
          };
        return ok(
          url === "https://a.example" ? "Prices rose 5%. Exports fell." : "Stocks were flat.",
          "Page",
        );
      },
      concurrency: 2,
    });

    expect(fetched.sort()).toEqual(["https://a.example", "https://b.example", "https://down.example"]);
    expect(result.records[0]!.citations_deduped).toEqual({
      "https://a.example": {
        facts: ["Prices rose.", "Imports grew."],
        url_content: "Page\n\nPrices rose 5%. Exports fell.",
        validate_res: [
          { idx: 0, result: "supported" },
          { idx: 1, result: "unknown" },
        ],
        validate_error: null,
      },
      "https://b.example": {
        facts: ["Stocks fell."],
        url_content: "Page\n\nStocks were flat.",
        validate_res: [{ idx: 0, result: "unsupported" }],
        validate_error: null,
      },
    });
    expect(result.records[1]).toEqual({ id: 2, citations: [], citations_deduped: {} });
    expect(result.records[2]!.citations_deduped["https://down.example"]).toEqual({
      facts: ["Output rose."],
      url_content: null,
      validate_res: [],
      validate_error: "no reference: NETWORK_ERROR: refused",
    });
    expect(result.formatErrors).toBe(1);
    expect(result.stats).toMatchObject({
      reports: 3,
      reportsWithCitations: 2,
      supported: 2,
      unsupported: 1,
      unknown: 1,
      fetchFailedUrls: 1,
      judgeFailedUrls: 0,
      failedStatements: 1,
      citationsPerReport: 1.5,
      effectiveCitations: 1,
      citationAccuracy: 2 / 3,
    });
  });

  it("counts a judge that never answers validly as a failed URL, not as unsupported", async () => {
    const model = scriptedModel([
      judge("1. Prices rose.", "no"),
      judge("1. Prices rose.", "[]"),
      judge("1. Prices rose.", "still no"),
    ]);
    const llm = new LlmClient({ registry: scriptedRegistry({ default: model }) });
    const result = await runFact({
      llm,
      reports: [{ id: 1, article: "Prices rose [1].\n\n## References\n[1] https://a.example - A" }],
      fetchText: async () => ok("Prices rose."),
    });
    expect(result.records[0]!.citations_deduped["https://a.example"]!.validate_error).toMatch(
      /^judge failed: role judge: no valid answer after 3 calls/,
    );
    expect(result.stats).toMatchObject({
      supported: 0,
      unsupported: 0,
      judgeFailedUrls: 1,
      citationAccuracy: null,
    });
    expect(result.formatErrors).toBe(3);
  });
});
