import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall } from "../../test/scripted/scripted-model.ts";
import { kindOf, on, type SmtlKit, shownIds, startSmtlKit } from "../../test/smtl/kit.ts";
import { ask } from "./ask-api.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe("ask() — the one-call API", () => {
  it("answers from the evidence of its only step when steps is 1, and closes its Dossier", async () => {
    kit = await startSmtlKit([
      on("plan", {
        json: {
          thought: "one goal",
          goals: [{ goal: "find the architect", successCriterion: "a page names them", paths: ["search"] }],
          calls: [
            { tool: "web_search", query: "architect 3" },
            { tool: "web_search", query: "opened 6" },
          ],
        },
      }),
      on("final", (call: ScriptedCall) => ({
        json: { answer: "Mara Vell", citations: shownIds(call.prompt).slice(0, 1) },
      })),
    ]);
    const result = await ask("Who designed the station that opened in 1903?", {
      steps: 1,
      dossier: kit.dossierOptions,
    });
    expect(kit.model.calls.map(kindOf)).toEqual(["plan", "final"]);
    expect(result).toMatchObject({
      status: "completed",
      stopReason: "step-cap",
      verified: false,
      steps: 1,
      toolCalls: 2,
      toolCallsPerStep: 2,
    });
    expect(result.answer).toBe("Mara Vell [1]");
    expect(result.citations).toHaveLength(1);
    expect(result.evidence[0]).toMatchObject({ citation: 1, retrievedBy: { tool: "web_search" } });
    expect(result.tokens.input).toBeGreaterThan(0);
    expect(result.wallMs).toBeGreaterThanOrEqual(0);
    expect(result.research.report?.strategy).toBe("smtl");
  });
});
