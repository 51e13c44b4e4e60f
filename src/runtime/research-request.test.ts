/**
 * A report format given twice is refused before anything runs: by the request schema (the
 * library), and so by the HTTP API (400), with no model call and no run recorded.
 */

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai/index.ts";
import { type RunningServer, startServer } from "../server/listen.ts";
import { createProject, type Project } from "../server/test-fixtures.ts";
import { createDossier } from "./dossier.ts";
import { researchRequestSchema } from "./research-request.ts";

let model: FakeOpenAI | undefined;
let project: Project | undefined;
let server: RunningServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  await project?.close();
  await model?.close();
  model = project = server = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A Dossier over a model that answers nothing and a temporary folder (recorded for removal). */
async function emptyWorld(prefix: string) {
  model = await startFakeOpenAI({ replies: [] });
  const root = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(root);
  const dossier = createDossier({
    env: {
      DOSSIER_HOME: join(root, "home"),
      DOSSIER_MODEL: "openai-compatible:m",
      DOSSIER_BASE_URL: model.url,
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: "http://127.0.0.1:9/",
    },
    cwd: root,
  });
  return { root, dossier, model };
}

describe("formats in a research request", () => {
  it("the schema refuses a format given twice and keeps distinct ones", () => {
    const twice = researchRequestSchema.safeParse({ query: "a question", formats: ["md", "html", "md"] });
    expect(twice.success).toBe(false);
    expect(twice.error?.issues[0]).toMatchObject({
      path: ["formats"],
      message: '"md" is given more than once',
    });
    expect(researchRequestSchema.parse({ query: "a question", formats: ["md", "html"] }).formats).toEqual([
      "md",
      "html",
    ]);
  });

  it("the library refuses it before the first model call, writing nothing", async () => {
    const { root, dossier } = await emptyWorld("dossier-formats-");
    try {
      const handle = dossier.research("How do heat pumps perform in winter?", {
        formats: ["md", "md"],
        out: join(root, "r"),
      });
      await expect(handle.done).rejects.toMatchObject({
        code: "INPUT_INVALID",
        message: 'formats: "md" is given more than once',
      });
      expect(model!.requests).toHaveLength(0);
      expect(await dossier.runs.list()).toEqual([]);
      expect(readdirSync(root).filter((f) => f !== "home")).toEqual([]);
    } finally {
      await dossier.close();
    }
  });

  it("the HTTP API answers 400 INPUT_INVALID and records no run", async () => {
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0 });
    const response = await fetch(`${server.url}/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        question: "How do heat pumps perform in cold climates?",
        strategy: "offline",
        corpus: "notes",
        formats: ["md", "md"],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "INPUT_INVALID", message: expect.stringContaining('"md" is given more than once') },
    });
    expect(await project.dossier.runs.list()).toEqual([]);
  });
});

describe("the length of a research question", () => {
  it("one limit for every way in: the library (so the CLI, batch and rollouts) refuses what the API refuses", () => {
    const long = `Why ${"so ".repeat(4000)}?`;
    const parsed = researchRequestSchema.safeParse({ query: long });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      `the question is longer than 8000 characters (${long.length}); give documents with --docs instead`,
    );
    expect(researchRequestSchema.safeParse({ query: "x".repeat(8000) }).success).toBe(true);
  });

  it("the library refuses an over-long question before the first model call, writing nothing", async () => {
    const { root, dossier } = await emptyWorld("dossier-long-");
    try {
      const handle = dossier.research("a".repeat(1_000_000), { out: join(root, "r") });
      await expect(handle.done).rejects.toMatchObject({
        code: "INPUT_INVALID",
        message: expect.stringMatching(/longer than 8000 characters \(1000000\)/),
      });
      expect(model!.requests).toHaveLength(0);
      expect(await dossier.runs.list()).toEqual([]);
      expect(readdirSync(root).filter((f) => f !== "home")).toEqual([]);
    } finally {
      await dossier.close();
    }
  });
});
