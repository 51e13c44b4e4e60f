/**
 * A refused command leaves nothing behind: bad input is refused with a coded error before the
 * data directory, the store or a corpus database is created.
 */

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../test/cli-io.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const REFUSED: [string, string[]][] = [
  ["a question too short", ["research", "x"]],
  ["a question too long", ["research", `Why ${"so ".repeat(4000)}?`]],
  ["a docs folder that does not exist", ["research", "How do heat pumps work?", "--docs", "missing"]],
  ["an unknown strategy", ["research", "How do heat pumps work?", "--strategy", "nope"]],
  ["a short question to ask", ["ask", "x"]],
  ["a format that does not exist", ["research", "How do heat pumps work?", "--format", "nope"]],
];

describe("refused commands", () => {
  for (const [what, argv] of REFUSED) {
    it(`${what}: refused with a coded error, no data directory or database made`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), "dossier-refused-"));
      dirs.push(cwd);
      const home = join(cwd, "home");
      const run = await runCliInProcess(argv, {
        cwd,
        env: {
          DOSSIER_HOME: home,
          DOSSIER_MODEL: "openai-compatible:m",
          DOSSIER_BASE_URL: "http://127.0.0.1:9/v1",
        },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/error \[INPUT_INVALID\]/);
      expect(existsSync(home)).toBe(false);
      expect(readdirSync(cwd)).toEqual([]);
    });
  }
});
