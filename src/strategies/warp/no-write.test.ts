/**
 * A lazy policy that never writes a section successfully does no research: the run fails with
 * `NO_RESEARCH`. In the JSON protocol every failed WRITE falls back to an extractive list of the
 * section's passages, so the run has a report — it is kept (written, returned) while the run
 * fails; in the native protocol a refused write is sampled again until the step cap, and the
 * run fails the same way with nothing written.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  cleanup,
  eventsOf,
  keywords,
  outline,
  researchWarp,
  step,
  terminate,
  WARP_QUESTION,
  warpDossier,
} from "../../../test/warp/kit.ts";
import { type NativeModel, nativeDossier, startNativeModel, tagged } from "../../../test/warp/native-kit.ts";
import type { DossierEvent } from "../../core/events.ts";

let model: NativeModel | undefined;
afterEach(async () => {
  await cleanup();
  await model?.server.close();
  model = undefined;
});

/** A WRITE answer that cites nothing: refused, whatever the section. */
const uncited = {
  name: "write",
  content: "Heat pumps are widely discussed, and opinions differ a great deal on them.",
};

describe("warp: no successful WRITE, no research", () => {
  it("JSON: every WRITE refused to the end, the sections drafted extractively: failed NO_RESEARCH, its report kept", async () => {
    const section = [step("search", keywords("heat pump")), ...Array(3).fill(step("write", uncited))];
    const { dossier, docs } = warpDossier([
      step("search", keywords("heat pump", "cold climate")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...section,
      ...section,
      ...section,
      step("deepen", terminate),
    ]);
    const { result, events } = await researchWarp(dossier, docs);
    expect(eventsOf(events, "warning").map((w) => w.code)).toEqual(Array(3).fill("SECTION_FALLBACK"));
    expect(result.status).toBe("failed");
    expect(result.stopReason).toBe("error: NO_RESEARCH");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message:
        "the run did no research: no WRITE of the policy succeeded (3 section(s) drafted as extractive lists)",
    });
    // The report the strategy wrote is kept: returned, and its files written.
    expect(result.report!.body).toContain("## Costs\n");
    expect(result.report!.references.length).toBeGreaterThan(0);
    expect(eventsOf(events, "report-ready")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: "run-end",
      status: "failed",
      error: { code: "NO_RESEARCH" },
    });
  });

  it("native (loopback server): a writer that never passes the checks fails the run NO_RESEARCH at the step cap", async () => {
    const lazy = tagged(
      "Nothing to cite.",
      "Heat pumps are widely discussed, and opinions differ on them a lot.",
    );
    model = await startNativeModel({ first: { write: Array(20).fill(lazy) } });
    const { dossier, docs } = nativeDossier(model);
    const events: DossierEvent[] = [];
    const result = await dossier.research(WARP_QUESTION, {
      strategy: "warp",
      strategyOptions: { protocol: "native", maxSteps: 8 },
      docs,
      sources: "local-only",
      onEvent: (e) => events.push(e),
    }).done;
    // search, init-plan, search, then five writes of section-1, each refused and sampled again.
    expect(model.prompts.write).toHaveLength(5);
    expect(eventsOf(events, "format-error").map((e) => e.error)).toEqual(
      Array(5).fill("the content cites nothing (no \\cite)"),
    );
    expect(eventsOf(events, "section-written")).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("NO_RESEARCH");
  });
});
