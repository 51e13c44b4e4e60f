/**
 * warp states its policy's sampling per role (the released code's temperature 0.7 and top-p 0.8
 * in both protocols, its 2,048 output tokens in the native one; the user's options over them),
 * and every call of a run is sent it.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  cleanup,
  drafts,
  keywords,
  outline,
  researchWarp,
  step,
  terminate,
  warpDossier,
} from "../../../test/warp/kit.ts";
import { warpOptionsSchema, warpStrategy } from "./definition.ts";

afterEach(cleanup);

const policy = (call: object) => ({ searcher: call, planner: call, writer: call });
const stated = (options: Record<string, unknown>) => warpStrategy.sampling!(warpOptionsSchema.parse(options));

describe("warp sampling", () => {
  it("states 0.7 / 0.8 for every policy role in both protocols, the 2,048-token cap in native only", () => {
    expect(stated({})).toEqual(policy({ temperature: 0.7, topP: 0.8 }));
    expect(stated({ protocol: "native" })).toEqual(
      policy({ temperature: 0.7, topP: 0.8, maxOutputTokens: 2048 }),
    );
    expect(stated({ protocol: "native", temperature: 0.2 })).toEqual(
      policy({ temperature: 0.2, topP: 0.8, maxOutputTokens: 2048 }),
    );
    expect(stated({ topP: 0.5 })).toEqual(policy({ temperature: 0.7, topP: 0.5 }));
    // The rubric generator, the judge and the page reader are not the policy: no stated sampling.
    for (const role of ["reader", "rubricer", "judge"] as const)
      expect(stated({ protocol: "native" })[role]).toBeUndefined();
  });

  it("JSON protocol: every policy call is sent the stated sampling, or the user's", async () => {
    const script = () => [
      step("search", keywords("heat pump")),
      step("initialize", outline("Efficiency", "Costs", "Grid")),
      ...drafts(["S1", "S2", "S3"]),
      step("deepen", terminate),
    ];
    const first = warpDossier(script());
    const { result } = await researchWarp(first.dossier, first.docs);
    expect(result.status).toBe("completed");
    expect(first.model.calls).toHaveLength(9);
    for (const call of first.model.calls) expect(call.options).toMatchObject({ temperature: 0.7, topP: 0.8 });

    const second = warpDossier(script());
    await researchWarp(second.dossier, second.docs, { temperature: 0.3 });
    for (const call of second.model.calls)
      expect(call.options).toMatchObject({ temperature: 0.3, topP: 0.8 });
  });
});
