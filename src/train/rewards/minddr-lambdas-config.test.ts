import { describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import {
  INITIAL_SEARCH_LAMBDAS,
  initialLambdaState,
  type LambdaScheduleConfigInput,
  type LambdaScheduleState,
  searchLambdas,
  updateLambdaSchedule,
} from "./minddr-lambdas.ts";

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof DossierError
      ? [error.code, error.message]
      : ["not a DossierError", String(error)];
  }
  return ["no error", ""];
};
const metrics = (
  toolSuccess: number | null,
  formatCompliance: number | null,
  prmCoverage: number | null,
) => ({
  toolSuccess,
  formatCompliance,
  prmCoverage,
});

describe("searchLambdas: the coefficients' bounds", () => {
  it("allows a zero coefficient and refuses a negative or missing one", () => {
    expect(searchLambdas(0.5, 0, 0.5)).toEqual({ tool: 0.5, format: 0, prm: 0.5, orm: 0 });
    expect(searchLambdas(0, 0.5, 0.5)).toEqual({ tool: 0, format: 0.5, prm: 0.5, orm: 0 });
    for (const [tool, format, prm] of [
      [-0.1, 0.6, 0.5],
      [0.5, Number.NaN, 0.5],
    ])
      expect(refusal(() => searchLambdas(tool!, format!, prm!))).toEqual([
        "INPUT_INVALID",
        "λ_tool, λ_format and λ_PRM must be ≥ 0",
      ]);
  });

  it("tolerates float noise up to 1e-9 at both ends of λ_ORM ∈ [0, 0.5], clamping below 0 to 0", () => {
    expect(searchLambdas(1.000000001, 0, 0).orm).toBe(0);
    expect(searchLambdas(0.499999999, 0, 0).orm).toBeCloseTo(0.5, 8);
    expect(refusal(() => searchLambdas(1.0000000011, 0, 0))).toEqual([
      "INPUT_INVALID",
      "λ_ORM = 1 − 1.0000000011 − 0 − 0 = -1.1e-9 is outside [0, 0.5]",
    ]);
    expect(refusal(() => searchLambdas(0.4999999989, 0, 0))[0]).toBe("INPUT_INVALID");
  });
});

describe("the λ schedule's configuration", () => {
  const walk = (config: LambdaScheduleConfigInput, batches: ReturnType<typeof metrics>[]) => {
    let s: LambdaScheduleState = initialLambdaState();
    const phases: number[] = [];
    for (const m of batches) {
      s = updateLambdaSchedule(s, m, config);
      phases.push(s.phase);
    }
    return { state: s, phases };
  };

  it("moves at the thresholds it is given", () => {
    const thresholds = { toolSuccess: 0.5, formatCompliance: 0.8, prmCoverage: 0.3 };
    const { phases, state } = walk({ thresholds }, [
      metrics(0.49, 1, 1),
      metrics(0.5, 0.79, 1),
      metrics(1, 0.8, 0.29),
      metrics(1, 1, 0.3),
    ]);
    expect(phases).toEqual([0, 1, 2, 3]);
    expect(state.transitions.map((t) => [t.metric, t.value, t.threshold])).toEqual([
      ["toolSuccess", 0.5, 0.5],
      ["formatCompliance", 0.8, 0.8],
      ["prmCoverage", 0.3, 0.3],
    ]);
  });

  it("moves to the phase targets it is given", () => {
    const phases = [
      { tool: 0.4, format: 0.3, prm: 0.3 },
      { tool: 0.3, format: 0.2, prm: 0.3 },
      { tool: 0.2, format: 0.2, prm: 0.2 },
    ] as [LambdaTarget, LambdaTarget, LambdaTarget];
    const { state } = walk({ phases }, [metrics(1, 1, 1), metrics(1, 1, 1), metrics(1, 1, 1)]);
    expect(state.transitions.map((t) => t.lambdas)).toEqual([
      { tool: 0.4, format: 0.3, prm: 0.3, orm: 0 },
      { tool: 0.3, format: 0.2, prm: 0.3, orm: 0.2 },
      { tool: 0.2, format: 0.2, prm: 0.2, orm: 0.4 },
    ]);
  });

  it("refuses a threshold outside [0, 1] for every figure, naming the schedule", () => {
    for (const key of ["toolSuccess", "formatCompliance", "prmCoverage"] as const) {
      const [code, message] = refusal(() =>
        updateLambdaSchedule(initialLambdaState(), metrics(1, 1, 1), { thresholds: { [key]: 1.5 } }),
      );
      expect(code).toBe("INPUT_INVALID");
      expect(message).toMatch(new RegExp(`^λ schedule: .*${key}`));
    }
  });

  it("refuses a bad later phase at the first batch, before the schedule reaches it", () => {
    const phases = [
      { tool: 0.2, format: 0.3, prm: 0.5 },
      { tool: 0.2, format: 0.1, prm: 0.5 },
      { tool: 0.1, format: 0.1, prm: 0.2 },
    ] as [LambdaTarget, LambdaTarget, LambdaTarget];
    const [code, message] = refusal(() =>
      updateLambdaSchedule(initialLambdaState(), metrics(0, 0, 0), { phases }),
    );
    expect(code).toBe("INPUT_INVALID");
    expect(message).toMatch(
      /^λ schedule: .*λ_ORM = 1 − 0\.1 − 0\.1 − 0\.2 = 0\.6 is outside \[0, 0\.5\].*phases\[2\]/,
    );
  });

  it("with a threshold of 0, a batch without the figure still resets the streak", () => {
    const config = { patience: 2, thresholds: { toolSuccess: 0 } };
    expect(walk(config, [metrics(null, 1, 1), metrics(0, 1, 1), metrics(0, 1, 1)]).phases).toEqual([0, 0, 1]);
  });

  it("keeps the last phase's λ whatever the figures", () => {
    let s = walk({}, [metrics(1, 1, 1), metrics(1, 1, 1), metrics(1, 1, 1)]).state;
    const last = s.lambdas;
    for (const m of [metrics(null, null, null), metrics(0, 0, 0)]) s = updateLambdaSchedule(s, m);
    expect([s.phase, s.lambdas, s.streak, s.batches, s.transitions.length]).toEqual([3, last, 0, 5, 3]);
    expect(last).not.toEqual(INITIAL_SEARCH_LAMBDAS);
  });
});

type LambdaTarget = { tool: number; format: number; prm: number };
