/**
 * The strict scripted-model check fires in every test file, including one loaded second in a
 * worker that already imported the research world (test files share a worker's module cache).
 */

import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");

describe("strict scripted model", () => {
  it("fails a test with an unused declared call in each of two files sharing one worker", () => {
    const run = spawnSync(
      process.execPath,
      [vitest, "run", "--config", "test/research/strict-fixtures/vitest.config.ts", "--reporter", "verbose"],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
        timeout: 60_000,
      },
    );
    const out = `${run.stdout}\n${run.stderr}`;
    expect(run.status, out).toBe(1);
    expect(out).toMatch(/Tests\s+2 failed \(2\)/);
    for (const file of ["a", "b"])
      expect(out).toContain(
        `FAIL  test/research/strict-fixtures/${file}.fixture.ts > fixture ${file} leaves`,
      );
    expect(out).toContain("role router: expected 1 call(s), got 0");
  }, 60_000);
});
