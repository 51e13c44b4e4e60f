import { describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { scriptedModel } from "../../../test/scripted/scripted-model.ts";
import { LlmClient } from "../../llm/client.ts";
import { checkTemporal } from "./temporal.ts";
import { verifyTemporal } from "./temporal-verify.ts";

const MD = [
  "The market will reach $50 billion by 2024.",
  "",
  "The automaker said it has a plan. Deliveries will exceed 2 million by 2025.",
  "",
  "Prices will fall by 2023.",
  "",
  "Demand will double by 2030.",
].join("\n");

describe("verifyTemporal", () => {
  it("lets the judge decide past statements, keeps the regex verdict when the judge fails, counts both", async () => {
    const judge = scriptedModel([
      { match: "$50 billion by 2024", reply: { json: { result: "no", detail: "no forecaster named" } } },
      // The regex found no attribution here ("it has a plan" is not a statement verb); the judge does.
      { match: "2 million by 2025", reply: "yes, the automaker" },
      {
        match: /2 million by 2025[\s\S]*could not be used/,
        reply: { json: { result: "yes", detail: "the automaker states its own plan" } },
      },
      { match: "Prices will fall", reply: "???" },
      { match: "Prices will fall", reply: "still not JSON" },
      { match: "Prices will fall", reply: "no JSON again" },
    ]);
    const client = new LlmClient({ registry: scriptedRegistry({ default: judge }), clock: instantClock() });
    const regex = checkTemporal(MD, { currentDate: "2026-03-01" });
    expect(regex.flagged.map((f) => f.date.text)).toEqual(["2024", "2025", "2023"]);

    const verified = await verifyTemporal(client, regex, { concurrency: 3 });
    expect(verified.verified).toBe(3);
    expect(verified.judgeFailures).toBe(1);
    expect(verified.formatErrors).toBe(4);
    expect(verified.candidates.map((c) => [c.date.text, c.verdict?.result ?? null, c.flagged])).toEqual([
      ["2024", "no", true],
      ["2025", "yes", false],
      ["2023", null, true],
      ["2030", null, false],
    ]);
    expect(verified.candidates[2]!.verifyError?.code).toBe("STRUCTURED_OUTPUT_FAILED");
    expect(verified.flagged).toHaveLength(2);
    expect(verified.errorRate).toBe(0.5);
    expect(judge.calls.find((c) => c.prompt.includes("$50 billion"))!.prompt).toContain("<context>");
  });
});
