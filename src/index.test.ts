import { describe, expect, it } from "vitest";
import { z } from "zod";
import { instantClock } from "../test/scripted/clocks.ts";
import { memoryStore, scriptedRegistry } from "../test/scripted/harness.ts";
import { scriptedModel } from "../test/scripted/scripted-model.ts";
import * as evalEntry from "./entries/eval.ts";
import * as mcpEntry from "./entries/mcp.ts";
import * as serverEntry from "./entries/server.ts";
import * as dossier from "./index.ts";

describe("library surface", () => {
  it("exports the entry points", () => {
    for (const name of [
      "prepareResearch",
      "startResearch",
      "startRun",
      "loadConfig",
      "registryFromConfig",
      "openSqliteStore",
      "citationPass",
      "ToolGateway",
      "webSearch",
      "fetchPage",
      "crawlPage",
      "localSearch",
      "renderHtml",
      "DossierError",
      "startServer",
      "serveMcpStdio",
    ]) {
      expect(typeof (dossier as Record<string, unknown>)[name], name).toBe("function");
    }
    expect(dossier.STRATEGIES).toEqual(
      expect.arrayContaining(["graph", "minddr", "offline", "warp", "smtl"]),
    );
    expect(dossier.STRATEGIES).toEqual(dossier.createStrategyRegistry().names());
  });

  it("exports the server, MCP and evaluation entry points from their subpaths", () => {
    for (const name of [
      "createServerApp",
      "startServer",
      "openApiDocument",
      "createRunManager",
      "loadOrCreateToken",
    ]) {
      expect(typeof (serverEntry as Record<string, unknown>)[name], `dossier/server ${name}`).toBe(
        "function",
      );
    }
    expect(typeof mcpEntry.createMcpServer).toBe("function");
    expect(typeof mcpEntry.serveMcpStdio).toBe("function");
    expect(typeof evalEntry.race.scoreJudgment).toBe("function");
    expect(typeof evalEntry.rubric).toBe("object");
  });

  it("runs a custom strategy as a recorded run", async () => {
    const store = memoryStore();
    const model = scriptedModel([{ json: { answer: 42 } }]);
    const handle = dossier.startRun({
      store,
      registry: scriptedRegistry({ default: model }),
      clock: instantClock(),
      query: "what is the answer?",
      options: { strategy: "custom" },
      strategy: async (ctx) => {
        const { value } = await ctx.structured({
          role: "default",
          schema: z.object({ answer: z.number() }),
          prompt: ctx.query,
        });
        return { stopReason: `answered ${value.answer}` };
      },
    });
    const { record } = await handle.done;
    expect(record).toMatchObject({ status: "completed", stopReason: "answered 42" });
    expect((await store.events.list(handle.runId)).map((e) => e.type)).toEqual([
      "run-start",
      "llm-start",
      "llm-end",
      "run-end",
    ]);
    store.close();
  });
});
