import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../../test/scripted/scripted-model.ts";
import { citedNumbers } from "../core/citations.ts";
import type { DossierEvent } from "../core/events.ts";
import { createOutline } from "../core/outline.ts";
import { assembleReport } from "../kit/report-assembly.ts";
import { BUILTIN_STRATEGIES } from "../strategies/builtin.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { research } from "./research-api.ts";

const dirs: string[] = [];
const open: Dossier[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp project with a docs folder of two notes. */
function project(): { root: string; docs: string } {
  const root = mkdtempSync(join(tmpdir(), "dossier-api-"));
  dirs.push(root);
  const docs = join(root, "notes");
  mkdirSync(docs);
  writeFileSync(
    join(docs, "heat-pumps.md"),
    "# Heat pumps\n\n## Cold climates\n\nCold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees in the field trial.\nDefrost cycles cost about 8 percent of the seasonal energy in the trial homes.\n",
  );
  writeFileSync(
    join(docs, "grid.md"),
    "# Grid\n\nWinter peak demand rose where heat pumps replaced gas boilers, according to the utility report.\n",
  );
  return { root, docs };
}

/** The environment of a project with no model and no search configured. */
const bareEnv = (root: string) => ({ DOSSIER_HOME: join(root, ".dossier") });

describe("research() — the one-call API", () => {
  it("runs an offline research over a folder and returns the report, files and events", async () => {
    const { root, docs } = project();
    const events: DossierEvent[] = [];
    const result = await research("How do heat pumps perform in cold climates?", {
      docs,
      formats: ["md", "json"],
      onEvent: (e) => events.push(e),
      dossier: { env: bareEnv(root), cwd: root },
    });
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("completed");
    expect(result.record.strategy).toBe("offline");
    expect(result.usage?.llmCalls).toBe(0);
    expect(result.paths).toHaveLength(2);
    for (const p of result.paths) expect(existsSync(p)).toBe(true);
    expect(readFileSync(result.paths[0]!, "utf8")).toBe(result.markdown);
    // Every citation number resolves to a local document of the folder.
    const numbers = citedNumbers(result.markdown!);
    expect(numbers.length).toBeGreaterThan(0);
    const refs = new Map(result.report!.references.map((r) => [r.number, r]));
    for (const n of numbers) expect(refs.get(n)?.locator).toMatch(/(heat-pumps|grid)\.md/);
    // The callback saw the whole log, in order, ending with run-end.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.type).toBe("run-start");
    expect(events.at(-1)!.type).toBe("run-end");
  });

  it("rejects with a clear error before anything runs when there is nothing to research with", async () => {
    const { root } = project();
    await expect(
      research("What is new in battery chemistry?", { dossier: { env: bareEnv(root), cwd: root } }),
    ).rejects.toMatchObject({
      code: "MODEL_NOT_CONFIGURED",
    });
    await expect(research("  ", { dossier: { env: bareEnv(root), cwd: root } })).rejects.toMatchObject({
      code: "INPUT_INVALID",
    });
    expect(() => createDossier({ env: bareEnv(root), cwd: root, config: { concurrency: 0 } })).toThrow(
      /config\.concurrency/,
    );
  });
});

/** A strategy that asks the model one question and writes a one-section report citing nothing. */
function echoStrategy(seen: unknown[]): StrategyDefinition<{ shout?: boolean }> {
  return {
    name: "echo",
    description: "asks the model once",
    optionsSchema: z.object({ shout: z.boolean().optional() }).strict(),
    roles: ["writer"],
    capabilities: { needsModel: true, web: false, local: true },
    estimate: () => ({ llm: [{ role: "writer", count: [1, 1], input: 100, output: 50 }], tools: [0, 0] }),
    async run(ctx, input) {
      seen.push(input.options);
      const { value } = await ctx.structured({
        role: "writer",
        schema: z.object({ text: z.string() }),
        prompt: ctx.query,
      });
      const text = input.options.shout ? value.text.toUpperCase() : value.text;
      const report = assembleReport(ctx, {
        title: "Echo",
        outline: createOutline([{ title: "Answer", plan: "the answer" }]),
        language: input.language,
        parts: [{ text: `## Answer\n\n${text}`, allowed: new Set() }],
        stopReason: "completed",
      });
      return { stopReason: "completed", report };
    },
  };
}

function dossierWith(root: string, steps: Parameters<typeof scriptedModel>[0], seen: unknown[] = []) {
  const model = scriptedModel(steps);
  const dossier = createDossier({
    env: { DOSSIER_HOME: join(root, ".dossier") },
    cwd: root,
    config: { model: "openai-compatible:scripted" },
    models: { "openai-compatible:scripted": model.model },
    strategies: [echoStrategy(seen) as StrategyDefinition<never>],
  });
  open.push(dossier);
  return { dossier, model };
}

describe("createDossier — the composition root", () => {
  it("runs a registered strategy with its validated options and streams its events on the handle", async () => {
    const { root, docs } = project();
    const seen: unknown[] = [];
    const { dossier, model } = dossierWith(root, [{ json: { text: "two degrees" } }], seen);
    expect(dossier.strategies.names()).toEqual([...BUILTIN_STRATEGIES.map((s) => s.name), "echo"]);
    const handle = dossier.research("Does the echo strategy run?", {
      strategy: "echo",
      strategyOptions: { shout: true },
      docs,
      sources: "local",
    });
    expect(dossier.runs.active()).toEqual([handle.runId]);
    const types: string[] = [];
    for await (const event of handle) types.push(event.type);
    const result = await handle.done;
    expect(seen).toEqual([{ shout: true }]);
    expect(result.runId).toBe(handle.runId);
    expect(result.status).toBe("completed");
    expect(result.markdown).toContain("TWO DEGREES");
    expect(types[0]).toBe("run-start");
    expect(types).toContain("llm-end");
    expect(types.at(-1)).toBe("run-end");
    expect((await dossier.runs.get(handle.runId.slice(0, 12))).status).toBe("completed");
    expect(dossier.runs.active()).toEqual([]);
    model.assertDone();
  });

  it("refuses an unknown strategy or option before any model call", async () => {
    const { root, docs } = project();
    const { dossier, model } = dossierWith(root, []);
    await expect(
      dossier.research("Which strategy is this?", { strategy: "nope", docs }).done,
    ).rejects.toThrow(
      `unknown strategy "nope": choose one of ${[...BUILTIN_STRATEGIES.map((s) => s.name), "echo"].join(", ")}`,
    );
    await expect(
      dossier.research("Which option is this?", { strategy: "echo", strategyOptions: { loud: 1 }, docs })
        .done,
    ).rejects.toThrow(/loud is not an option of the echo strategy/);
    await expect(
      dossier.research("Which option is this?", { strategy: "graph", maxSteps: 3, docs }).done,
    ).rejects.toThrow(/maxSteps is not an option of the graph strategy/);
    expect(model.calls).toHaveLength(0);
  });

  it("cancels a run under way by id and records it as cancelled", async () => {
    const { root, docs } = project();
    const model = scriptedModel([]);
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    const waiter: StrategyDefinition<Record<string, never>> = {
      ...echoStrategy([]),
      name: "waiter",
      optionsSchema: z.object({}).strict(),
      run: (ctx) =>
        new Promise((_, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        }),
    };
    const dossier = createDossier({
      env: { DOSSIER_HOME: join(root, ".dossier") },
      cwd: root,
      config: { model: "openai-compatible:scripted" },
      models: { "openai-compatible:scripted": model.model },
      strategies: [waiter as StrategyDefinition<never>],
    });
    open.push(dossier);
    const handle = dossier.research("Will this run be cancelled?", {
      strategy: "waiter",
      docs,
      sources: "local",
    });
    await running;
    expect(dossier.runs.cancel(handle.runId, "stopped by the test")).toBe(true);
    const result = await handle.done;
    expect(result.status).toBe("cancelled");
    expect(result.stopReason).toBe("cancelled: stopped by the test");
    expect(dossier.runs.cancel(handle.runId)).toBe(false);
    expect(model.calls).toHaveLength(0);
  });

  it("derives the estimate from the chosen strategy's definition", () => {
    const { root, docs } = project();
    const { dossier } = dossierWith(root, []);
    expect(dossier.estimate("Estimate the echo strategy", { strategy: "echo", docs })).toMatchObject({
      strategy: "echo",
      llmCalls: [1, 1],
      toolCalls: [0, 0],
    });
    const few = dossier.estimate("Estimate minddr", { strategy: "minddr", maxSteps: 2 });
    const many = dossier.estimate("Estimate minddr", { strategy: "minddr", maxSteps: 20 });
    expect(few.llmCalls[1]).toBeLessThan(many.llmCalls[1]);
    expect(dossier.estimate("Estimate offline", { strategy: "offline", docs }).llmCalls).toEqual([0, 0]);
    expect(() => dossier.estimate("Estimate nothing", { strategy: "missing" })).toThrow(/unknown strategy/);
  });
});
