/**
 * `dossier research --docs` names every document it left out of the index and why (as `dossier
 * index` does), on stderr, as text: a file name cannot move the terminal.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("research --docs", () => {
  it("names each skipped document with its reason, its name as plain text", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "dossier-docs-skips-"));
    dirs.push(cwd);
    mkdirSync(join(cwd, "notes"));
    writeFileSync(
      join(cwd, "notes", "winter.md"),
      "# Heat pumps in winter\n\nHeat pumps keep heating at minus fifteen degrees with a coefficient of performance above two, field tests show.\n",
    );
    writeFileSync(join(cwd, "notes", "blob\u001b[2Jname.txt"), Buffer.from([0, 1, 2, 0, 255, 0, 7, 0]));
    const run = await runCliInProcess(
      ["research", "How do heat pumps perform in winter?", "--docs", "notes", "--out", "r"],
      { cwd, env: { DOSSIER_HOME: join(cwd, "home") } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/skipped blob\\x1b\[2Jname\.txt: binary \(NUL byte/);
    expect(run.stderr).not.toContain("\u001b");
  });
});
