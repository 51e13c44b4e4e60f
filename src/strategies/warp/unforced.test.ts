import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall } from "../../../test/scripted/scripted-model.ts";
import {
  cleanup,
  drafts,
  eventsOf,
  expand,
  keywords,
  MARK,
  outline,
  researchWarp,
  step,
  terminate,
  warpDossier,
} from "../../../test/warp/kit.ts";
import { createOutline } from "../../core/outline.ts";
import type { WarpState } from "./draft.ts";
import { agentcpmCodecs } from "./native/codecs.ts";
import { deepenJsonCodec } from "./planner.ts";
import { type UnforcedDecision, unforcedDecision } from "./unforced.ts";

afterEach(cleanup);

const opening = [
  step("search", keywords("heat pump")),
  step("initialize", outline("Efficiency", "Costs", "Grid")),
];
const RUBRIC = [
  ...[1, 2, 3].map((i) => ({
    title: `Key ${i}`,
    description: `Key Criterion: covers aspect ${i}.`,
    weight: 5,
  })),
  ...[1, 2].map((i) => ({
    title: `Imp ${i}`,
    description: `Important Criterion: explains ${i}.`,
    weight: 3,
  })),
  { title: "Opt", description: "Optional Criterion: gives an example.", weight: 1 },
  { title: "Err", description: "Error Criterion: states a wrong figure.", weight: -1 },
];
const preferLast = (call: ScriptedCall) => ({
  reason: "scripted",
  rating: call.lastUser.includes("S2.1:") ? 9 : 3,
});
const deepening = [
  step("deepen", expand("section-1", "Field trials", "Lab tests")),
  ...drafts(["S1.1", "S1.2"]),
  step("deepen", expand("section-2", "Installation", "Running")),
  ...drafts(["S2.1", "S2.2"]),
];

describe("warp forced expansion records each decision's unforced request", () => {
  it("is exactly the request an unforced run sends at the same state, at every decision and at the last draft", async () => {
    // The forced run: two forced expansions; the judge prefers the last draft, so the cut is there.
    const forced = warpDossier([
      ...opening,
      ...drafts(["S1", "S2", "S3"]),
      ...deepening,
      step("rubric", RUBRIC),
      ...Array.from({ length: 3 * RUBRIC.length }, () => step("judge", preferLast)),
    ]);
    const { events } = await researchWarp(forced.dossier, forced.docs, { forceExpand: 2 });
    const steps = eventsOf(events, "trajectory-step");
    const decisions = steps.filter((s) => s.action === "expand");
    expect(decisions).toHaveLength(2);
    const recorded = decisions.map((d) => (d.state as { unforced: UnforcedDecision }).unforced);
    // The forced requests say so and offer no TERMINATE; the recorded ones do not.
    const forcedCalls = forced.model.calls.filter((c) => c.system.includes(MARK.deepen));
    expect(forcedCalls.every((c) => c.system.includes("You must expand one section now."))).toBe(true);
    for (const u of recorded) {
      expect(u.system).not.toContain("You must expand");
      expect(u.structured!.forcedSystem).toContain("You must expand one section now.");
      expect(JSON.stringify(u.responseSchema)).toContain('"terminate"');
      expect(u.terminate).toBe('{"name":"terminate"}');
    }
    // The relabel marker carries the request after the last draft only when the cut is there.
    const marker = steps.at(-1)!;
    const cut = (marker.state as { cut: number }).cut;
    expect(cut).toBe(eventsOf(events, "draft-snapshot").length - 1);
    recorded.push((marker.state as { unforced: UnforcedDecision }).unforced);
    // with the state it saw, as a decision's step records it
    expect(marker.state).toMatchObject({ expanded: ["1", "2"], outline: { sections: expect.any(Array) } });

    // The unforced run makes the same decisions, then is asked a third time: TERMINATE.
    const free = warpDossier([
      ...opening,
      ...drafts(["S1", "S2", "S3"]),
      ...deepening,
      step("deepen", terminate),
    ]);
    await researchWarp(free.dossier, free.docs, { scorer: "grounding" });
    const asked = free.model.calls.filter((c) => c.system.includes(MARK.deepen));
    expect(asked).toHaveLength(3);
    // At each forced decision the recorded request is what the unforced run sent there, with the
    // schema instruction structured output adds to the system prompt.
    expect(recorded).toHaveLength(3);
    recorded.forEach((u, i) => {
      expect(`${u.system}\n\n${u.structured!.instruction}`).toBe(asked[i]!.system);
      expect(u.messages.at(-1)!.content).toBe(asked[i]!.lastUser);
      // (the provider gets the schema without its $schema line; the call recorder keeps it)
      const { $schema: _, ...schema } = u.responseSchema!;
      expect(JSON.stringify(schema)).toBe(
        JSON.stringify((asked[i]!.options.responseFormat as { schema?: unknown }).schema),
      );
      // and the forced call, as sent, is the forced system prompt with the forced instruction
      if (i < 2)
        expect(forcedCalls[i]!.system).toBe(
          `${u.structured!.forcedSystem}\n\n${u.structured!.forcedInstruction}`,
        );
    });
  });

  it("an unforced run records nothing of the kind", async () => {
    const { dossier, docs } = warpDossier([
      ...opening,
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", terminate),
    ]);
    const { events } = await researchWarp(dossier, docs);
    for (const s of eventsOf(events, "trajectory-step"))
      expect("unforced" in (s.state as object)).toBe(false);
  });
});

describe("TERMINATE in each protocol's form", () => {
  const ctx = { query: "How do heat pumps perform in cold climates?", currentDate: "2026-03-01" };
  const state: WarpState = {
    question: ctx.query,
    title: "Heat pumps",
    outline: createOutline([
      { title: "Efficiency", plan: "What trials measured" },
      { title: "Costs", plan: "What installing costs" },
    ]),
    citations: new Map(),
    expanded: new Set(),
  };
  const input = { state, language: "en", forced: true, expansionsLeft: 2 };

  it("is a TERMINATE the unforced codec accepts, and no answer the forced one accepts", () => {
    const json = deepenJsonCodec(ctx, {});
    const u = unforcedDecision(json, "json", input, 10);
    expect(u.messages.at(-1)!.content).toContain("Expansions left: 10.");
    const value = JSON.parse(u.terminate) as unknown;
    const free = json.request({ ...input, forced: false });
    expect(json.decode(free.schema.parse(value), { ...input, forced: false })).toEqual({
      ok: true,
      action: { name: "terminate" },
    });
    expect(json.request(input).schema.safeParse(value).success).toBe(false);

    const native = agentcpmCodecs(ctx, {}).deepen;
    const n = unforcedDecision(native, "native", input, 10);
    expect(n.system).toBeUndefined();
    expect(n.messages.at(-1)!.content).toContain("- nop: no operation.");
    expect(n.messages.at(-1)!.content).not.toContain("You must expand");
    expect(native.decode(n.terminate, { ...input, forced: false })).toMatchObject({
      ok: true,
      action: { name: "terminate", native: "nop" },
    });
    expect(native.decode(n.terminate, input).ok).toBe(false);
  });
});
