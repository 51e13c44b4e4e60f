import { APICallError, UnsupportedFunctionalityError } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import { createModelRegistry } from "./registry.ts";
import {
  isNativeEligible,
  isSchemaModeUnsupported,
  nativeJsonOutput,
  PROVIDER_STRUCTURED_OUTPUT,
  schemaToJson,
} from "./structured-mode.ts";

function apiError(statusCode: number, message: string, responseBody?: string) {
  return new APICallError({
    message,
    url: "http://127.0.0.1/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    ...(responseBody ? { responseBody } : {}),
  });
}

describe("isSchemaModeUnsupported", () => {
  it.each([
    [apiError(400, "Bad Request", '{"error":"response_format json_schema is not supported"}')],
    [apiError(422, "Unprocessable", '{"detail":"Unknown field: response_format.json_schema"}')],
    [apiError(501, "guided_json is not implemented")],
    [
      new DossierError("PROVIDER_ERROR", "wrapped", {
        cause: apiError(400, "structured outputs unsupported"),
      }),
    ],
    [new UnsupportedFunctionalityError({ functionality: "responseFormat" })],
    [
      apiError(
        400,
        "Invalid JSON payload received. Unknown name \"responseJsonSchema\" at 'generation_config'",
      ),
    ],
    [apiError(400, "output_format: this model does not support structured outputs")],
  ])("recognises a rejected schema mode (%#)", (error) => {
    expect(isSchemaModeUnsupported(error)).toBe(true);
  });

  it.each([
    [apiError(400, "maximum context length exceeded")],
    [apiError(429, "response_format not supported right now, slow down")],
    [apiError(500, "response_format json_schema is not supported")],
    [new Error("response_format not supported")],
  ])("leaves other failures alone (%#)", (error) => {
    expect(isSchemaModeUnsupported(error)).toBe(false);
  });
});

describe("native output specification", () => {
  it("passes the schema as the response format and returns the raw text", async () => {
    const json = schemaToJson(z.object({ a: z.string(), b: z.number().default(1) }));
    expect(json).toMatchObject({ type: "object", required: ["a"] });
    expect(isNativeEligible(json)).toBe(true);
    expect(isNativeEligible(schemaToJson(z.array(z.string())))).toBe(false);
    const output = nativeJsonOutput(json);
    const format = await output.responseFormat;
    expect(format).toMatchObject({ type: "json", name: "answer", schema: { type: "object" } });
    expect(format).not.toHaveProperty("schema.$schema");
    const parsed = await output.parseCompleteOutput(
      { text: "not json at all" },
      {} as Parameters<typeof output.parseCompleteOutput>[1],
    );
    expect(parsed).toBe("not json at all");
  });
});

describe("structured-output mode per model", () => {
  it("defaults by provider, follows the configuration and remembers a demotion", () => {
    expect(Object.values(PROVIDER_STRUCTURED_OUTPUT).every((m) => m === "native")).toBe(true);
    const registry = createModelRegistry({
      defaultModel: "ollama:qwen3:8b",
      roleModels: { writer: "openai-compatible:small" },
      baseUrl: "http://127.0.0.1:9/v1",
      structuredOutput: { "openai-compatible:small": "prompt" },
    });
    expect(registry.forRole("planner").structuredOutput).toBe("native");
    expect(registry.forRole("writer").structuredOutput).toBe("prompt");
    registry.demoteToPromptOutput("ollama:qwen3:8b");
    expect(registry.forRole("planner").structuredOutput).toBe("prompt");
  });
});
