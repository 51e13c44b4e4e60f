/**
 * Every warp protocol reports a refused reply on the call that produced it: the call's `llm-end`
 * counts one format error, its recorded `llm-call` names it, and the re-ask (JSON, naming the
 * problem) or re-sample (AgentCPM tags, the same prompt) that follows is recorded as a repair
 * round of the same step — so the training layer sees every reply the codecs refused.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall } from "../../../test/scripted/scripted-model.ts";
import {
  cleanup,
  drafts,
  keywords,
  eventsOf as of,
  outline,
  passageIds,
  researchWarp,
  step,
  terminate,
  warpDossier,
  write,
} from "../../../test/warp/kit.ts";
import { type NativeModel, nativeDossier, startNativeModel, tagged } from "../../../test/warp/native-kit.ts";
import type { DossierEvent } from "../../core/events.ts";
import type { Dossier } from "../../runtime/dossier.ts";

let model: NativeModel | undefined;
afterEach(async () => {
  await cleanup();
  await model?.server.close();
  model = undefined;
});

async function research(dossier: Dossier, docs: string, strategyOptions: Record<string, unknown>) {
  const { result, events } = await researchWarp(dossier, docs, strategyOptions, { recordCalls: true });
  expect(result.status).toBe("completed");
  return events;
}

/**
 * The one refused writer call: its llm-end, llm-call and format-error event report `error`, and
 * the writer's next call repairs the same step. Returns the refused call and its repair.
 */
function oneRefusedWrite(events: DossierEvent[], error: RegExp) {
  const recorded = of(events, "llm-call").filter((c) => c.role === "writer");
  const refused = recorded.filter((c) => c.formatErrors.length > 0);
  expect(refused).toHaveLength(1);
  const call = refused[0]!;
  expect(call.formatErrors).toEqual([expect.stringMatching(error)]);
  const ends = of(events, "llm-end").filter((e) => e.formatErrors > 0);
  expect(ends.map((e) => e.callId)).toEqual([call.callId]);
  expect(of(events, "format-error").map((e) => [e.callId, e.role])).toEqual([[call.callId, "writer"]]);
  const repair = recorded[recorded.indexOf(call) + 1]!;
  expect(repair.step).toBe(call.step);
  expect(repair.formatErrors).toEqual([]);
  return { call, repair };
}

describe("warp: a refused reply is the call's recorded format error", () => {
  it("JSON: a section too short is re-asked with the reason, in the same step", async () => {
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      step("search", keywords("heat pump")),
      step("write", (c: ScriptedCall) => ({
        name: "write",
        content: `Too short [${passageIds(c.prompt)[0]}]`,
      })),
      step("write", write("S1")),
      ...drafts(["S2", "S3"]),
      step("deepen", terminate),
    ]);
    const events = await research(dossier, docs, {});
    const { call, repair } = oneRefusedWrite(events, /longer than 50 characters/);
    // The re-ask: the refused answer, then the problem named.
    expect(repair.prefix).toEqual({ callId: call.callId, count: 2 });
    expect(repair.messages).toEqual([
      { role: "assistant", completionOf: call.callId },
      { role: "user", content: expect.stringMatching(/^Your answer could not be used: .*longer than 50/s) },
    ]);
  });

  it("AgentCPM tags: a section with a heading is sampled again from the same prompt, in the same step", async () => {
    const heading = tagged(
      "w",
      "## Heading\n\nA paragraph long enough to pass the length rule \\cite{textid1}.",
    );
    model = await startNativeModel({ expansions: 0, first: { write: [heading] } });
    const { dossier, docs } = nativeDossier(model);
    const events = await research(dossier, docs, { protocol: "native" });
    const { call, repair } = oneRefusedWrite(events, /^the content must not contain #$/);
    expect(call.completion).toBe(heading);
    // The re-sample: the refused call's one message again, nothing added.
    expect(repair.prefix).toEqual({ callId: call.callId, count: 1 });
    expect(repair.messages).toEqual([]);
  });
});
