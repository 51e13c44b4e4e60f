import { describe, expect, it } from "vitest";
import { isDossierError } from "../../core/errors.ts";
import {
  INITIAL_SEARCH_LAMBDAS,
  initialLambdaState,
  type LambdaScheduleState,
  searchLambdas,
  updateLambdaSchedule,
} from "./minddr-lambdas.ts";

const metrics = (
  toolSuccess: number | null,
  formatCompliance: number | null,
  prmCoverage: number | null,
) => ({
  toolSuccess,
  formatCompliance,
  prmCoverage,
});

describe("MindDR's λ (Eq. 9, §5.2)", () => {
  it("starts at (0.6, 0.3, 0.1, 0.0) and derives λ_ORM = 1 − the others", () => {
    expect(INITIAL_SEARCH_LAMBDAS).toEqual({ tool: 0.6, format: 0.3, prm: 0.1, orm: 0 });
    expect(searchLambdas(0.2, 0.1, 0.5)).toEqual({ tool: 0.2, format: 0.1, prm: 0.5, orm: 0.2 });
  });

  it("keeps λ_ORM in [0, 0.5]", () => {
    expect(searchLambdas(0.2, 0.1, 0.2).orm).toBe(0.5);
    for (const [t, f, p] of [
      [0.1, 0.1, 0.2], // λ_ORM = 0.6
      [0.6, 0.3, 0.2], // λ_ORM = −0.1
      [-0.1, 0.6, 0.5],
    ] as const) {
      expect(() => searchLambdas(t, f, p)).toThrow(/λ/);
    }
  });
});

describe("the threshold-triggered λ schedule", () => {
  it("moves through its three phases exactly at the thresholds, one phase per batch", () => {
    let s = initialLambdaState();
    s = updateLambdaSchedule(s, metrics(0.94, 1, 1)); // tool 0.94 < 0.95
    expect([s.phase, s.lambdas]).toEqual([0, INITIAL_SEARCH_LAMBDAS]);
    s = updateLambdaSchedule(s, metrics(0.95, 1, 1)); // tool reaches 0.95; format also high, but one phase per batch
    expect([s.phase, s.lambdas]).toEqual([1, { tool: 0.2, format: 0.3, prm: 0.5, orm: 0 }]);
    s = updateLambdaSchedule(s, metrics(1, 0.949, 1));
    expect(s.phase).toBe(1);
    s = updateLambdaSchedule(s, metrics(1, 0.95, 0.59));
    expect([s.phase, s.lambdas]).toEqual([2, { tool: 0.2, format: 0.1, prm: 0.5, orm: 0.2 }]);
    s = updateLambdaSchedule(s, metrics(1, 1, 0.59));
    expect(s.phase).toBe(2);
    s = updateLambdaSchedule(s, metrics(1, 1, 0.6));
    expect([s.phase, s.lambdas]).toEqual([3, { tool: 0.2, format: 0.1, prm: 0.2, orm: 0.5 }]);
    s = updateLambdaSchedule(s, metrics(0, 0, 0)); // the last phase stays
    expect(s.phase).toBe(3);
    expect(s.batches).toBe(7);
    expect(s.transitions.map((t) => [t.batch, t.phase, t.metric, t.value])).toEqual([
      [2, 1, "toolSuccess", 0.95],
      [4, 2, "formatCompliance", 0.95],
      [6, 3, "prmCoverage", 0.6],
    ]);
  });

  it("waits for `patience` consecutive batches; a miss or a batch without the figure resets the streak", () => {
    const config = { patience: 2, thresholds: { toolSuccess: 0.9 } };
    let s: LambdaScheduleState = initialLambdaState();
    for (const value of [0.9, 0.5, 0.95, null, 0.91]) {
      s = updateLambdaSchedule(s, metrics(value, null, null), config);
      expect(s.phase).toBe(0);
    }
    s = updateLambdaSchedule(s, metrics(0.92, null, null), config);
    expect(s.phase).toBe(1);
  });

  it("does not change the state it is given", () => {
    const s = initialLambdaState();
    const copy = structuredClone(s);
    updateLambdaSchedule(s, metrics(1, 1, 1));
    expect(s).toEqual(copy);
  });

  it("refuses phase targets that would put λ_ORM outside [0, 0.5]", () => {
    const bad = {
      phases: [
        { tool: 0.1, format: 0.1, prm: 0.2 },
        { tool: 0.2, format: 0.1, prm: 0.5 },
        { tool: 0.2, format: 0.1, prm: 0.2 },
      ] as [
        { tool: number; format: number; prm: number },
        { tool: number; format: number; prm: number },
        { tool: number; format: number; prm: number },
      ],
    };
    try {
      updateLambdaSchedule(initialLambdaState(), metrics(1, 1, 1), bad);
      expect.unreachable();
    } catch (error) {
      expect(isDossierError(error, "INPUT_INVALID")).toBe(true);
    }
  });
});
