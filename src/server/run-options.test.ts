/**
 * The strategy options of the new-research form over the API: `/v1/strategies` describes every
 * option (an enum with its values, an object as JSON), and a run or an estimate whose options
 * the strategy's schema refuses is answered 400 before anything starts.
 */

import { afterEach, describe, expect, it } from "vitest";
import { createServerApp } from "./app.ts";
import { strategyListResponseSchema } from "./schemas.ts";
import { createProject, type Project } from "./test-fixtures.ts";

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

describe("strategy options over the API", () => {
  it("lists smtl's protocol as a choice and its systemPrompt as JSON", async () => {
    project = await createProject();
    const { app, close } = createServerApp({ dossier: project.dossier, token: null });
    try {
      const list = strategyListResponseSchema.parse(await (await app.request("/v1/strategies")).json());
      const smtl = list.strategies.find((s) => s.name === "smtl")!.options;
      expect(smtl.find((o) => o.name === "protocol")).toMatchObject({
        type: "string",
        enum: ["json", "native"],
        default: "json",
      });
      expect(smtl.find((o) => o.name === "systemPrompt")).toMatchObject({
        type: "json",
        allowed: "a JSON object {searcher: text}",
      });
    } finally {
      await close();
    }
  });

  it("refuses a run or an estimate with an option the strategy's schema refuses: 400, nothing started", async () => {
    project = await createProject();
    const { app, close } = createServerApp({ dossier: project.dossier, token: null });
    try {
      const question = "Which topic grew by 11 percent in 2025?";
      const cases: [Record<string, unknown>, string][] = [
        [{ protocol: "xml" }, 'strategy smtl: option protocol must be one of json, native, got "xml"'],
        [
          { systemPrompt: "prompt.txt" },
          'strategy smtl: option systemPrompt must be a JSON object {searcher: text}, got "prompt.txt"',
        ],
        [{ nosuch: 1 }, "strategy smtl: nosuch is not an option of the smtl strategy; its options are"],
      ];
      for (const [strategyOptions, message] of cases) {
        for (const path of ["/v1/runs", "/v1/estimate"]) {
          const res = await app.request(path, json({ question, strategy: "smtl", strategyOptions }));
          expect(res.status, `${path} ${JSON.stringify(strategyOptions)}`).toBe(400);
          const body = (await res.json()) as { error: { code: string; message: string } };
          expect(body.error.code).toBe("INPUT_INVALID");
          expect(body.error.message).toContain(message);
        }
      }
      expect(await project.dossier.runs.list({ limit: 10 })).toEqual([]);
    } finally {
      await close();
    }
  });
});
