import { describe, expect, it } from "vitest";
import { newerVersion, refreshOf, versionOf, versionsOf } from "./versions.ts";

const run = (id: string, createdAt: string, of?: string, version?: number) => ({
  id,
  createdAt,
  status: "completed" as const,
  strategy: of ? "refresh" : "minddr",
  options: of ? { strategyOptions: { refreshOf: of, version } } : {},
});

describe("report versions", () => {
  const runs = [
    run("v3", "2026-01-03", "v2", 3),
    run("other", "2026-01-01"),
    run("v2", "2026-01-02", "v1", 2),
    run("v1", "2026-01-01"),
    run("v2b", "2026-01-04", "v1", 2),
    run("lone", "2026-01-05", "missing", 2),
  ];

  it("chains a run back to its first version and forward to every refresh, oldest first", () => {
    const ids = (id: string) => versionsOf(runs, id).map((v) => `${v.version}:${v.runId}`);
    expect(ids("v1")).toEqual(["1:v1", "2:v2", "2:v2b", "3:v3"]);
    expect(ids("v3")).toEqual(ids("v1"));
    expect(versionsOf(runs, "v2")[1]).toMatchObject({ refreshOf: "v1", status: "completed" });
    // A run never refreshed has no versions to show; an unknown one neither.
    expect(ids("other")).toEqual([]);
    expect(ids("nope")).toEqual([]);
    // A refresh whose parent is not listed starts its own chain.
    expect(ids("lone")).toEqual([]);
  });

  it("reads a refresh run's parent and version, and only a refresh run's", () => {
    expect(refreshOf(runs[0]!)).toBe("v2");
    expect(versionOf(runs[0]!)).toBe(3);
    expect(refreshOf({ ...runs[1]!, options: { strategyOptions: { refreshOf: "x" } } })).toBeNull();
    expect(versionOf(runs[1]!)).toBe(1);
    // A cycle in stored options ends the walk.
    const loop = [run("a", "1", "b", 2), run("b", "2", "a", 3)];
    expect(versionsOf(loop, "a").map((v) => v.runId)).toEqual(["a", "b"]);
  });
});

describe("newerVersion", () => {
  const v = (version: number, runId: string, status = "completed") => ({
    version,
    runId,
    status,
    createdAt: "2026-01-01T00:00:00Z",
    refreshOf: version === 1 ? null : "a",
  });
  it("names the latest completed version when it is newer than the run's own", () => {
    const versions = [v(1, "a"), v(2, "b"), v(3, "c", "failed")];
    expect(newerVersion(versions, "a")?.runId).toBe("b");
    // The latest completed one is refreshed, even when a later refresh failed.
    expect(newerVersion(versions, "b")).toBeUndefined();
    expect(newerVersion(versions, "c")).toBeUndefined();
  });
  it("has nothing newer for a run never refreshed or not in the list", () => {
    expect(newerVersion([], "a")).toBeUndefined();
    expect(newerVersion([v(1, "a"), v(2, "b", "running")], "a")).toBeUndefined();
    expect(newerVersion([v(1, "a"), v(2, "b")], "zzz")).toBeUndefined();
  });
});
