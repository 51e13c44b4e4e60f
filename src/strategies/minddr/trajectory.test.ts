import { describe, expect, it } from "vitest";
import type { Evidence } from "../../core/source.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import type { TrajectoryStep } from "./search-agent.ts";
import { renderStep, windowTrajectory } from "./trajectory.ts";

/** A step whose one search recorded two excerpts, each naming the step. */
function step(n: number): TrajectoryStep {
  const evidence = [1, 2].map(
    (k): Evidence => ({
      id: `E${2 * n + k - 2}`,
      sourceId: `S${n}`,
      text: `Excerpt ${n}.${k}: the station opened in ${1900 + n} and was rebuilt later, say the records.`,
      retrievedBy: { tool: "web_search", callId: `C${n}` },
    }),
  );
  return {
    thought: `thought of step ${n}`,
    observations: [{ action: `web_search "query ${n}"`, ok: true, evidence, lines: [] }],
  };
}

const steps = [1, 2, 3, 4].map(step);
const size = (levels: ("full" | "brief" | "omitted")[]) =>
  steps.reduce((sum, s, i) => sum + estimateTokens(renderStep(s, i, levels[i]!)) + 1, 0);

describe("the appended trajectory", () => {
  it("shows every step in order, observations in full, when it fits", () => {
    const { text, levels } = windowTrajectory(steps, 100_000);
    expect(levels).toEqual(["full", "full", "full", "full"]);
    const marks = steps.flatMap((_, i) => [
      `Step ${i + 1}`,
      `thought of step ${i + 1}`,
      `web_search "query ${i + 1}"`,
      `Excerpt ${i + 1}.1`,
      `Excerpt ${i + 1}.2`,
    ]);
    const positions = marks.map((m) => text.indexOf(m));
    for (const p of positions) expect(p).toBeGreaterThan(-1);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it("abbreviates the oldest observations first, one at a time", () => {
    const fits = size(["brief", "full", "full", "full"]);
    const { text, levels } = windowTrajectory(steps, fits);
    expect(levels).toEqual(["brief", "full", "full", "full"]);
    expect(text).not.toContain("Excerpt 1.1");
    expect(text).toContain("2 item(s): E1, E2");
    for (const n of [2, 3, 4]) expect(text).toContain(`Excerpt ${n}.1`);
    expect(windowTrajectory(steps, fits - 1).levels).toEqual(["brief", "brief", "full", "full"]);
  });

  it("drops the oldest observations first once all are abbreviated, keeping every thought and action", () => {
    const fits = size(["omitted", "brief", "brief", "brief"]);
    const { text, levels } = windowTrajectory(steps, fits);
    expect(levels).toEqual(["omitted", "brief", "brief", "brief"]);
    expect(text).toContain("Observation: (left out to fit the context window; it recorded E1, E2)");
    expect(windowTrajectory(steps, fits - 1).levels).toEqual(["omitted", "omitted", "brief", "brief"]);
    const tiny = windowTrajectory(steps, 1);
    expect(tiny.levels).toEqual(["omitted", "omitted", "omitted", "omitted"]);
    for (const n of [1, 2, 3, 4]) {
      expect(tiny.text).toContain(`thought of step ${n}`);
      expect(tiny.text).toContain(`web_search "query ${n}"`);
    }
  });
});
