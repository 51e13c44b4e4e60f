/**
 * A reader that closes the pipe early (`dossier runs list --json | head -c 600`): the CLI, a
 * real child process here, ends quietly with exit 0 — no EPIPE stack trace on stderr.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../store/sqlite-store.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data directory holding `n` runs with long questions: `runs list --json` prints far more than a pipe holds. */
function homeWithRuns(n: number): string {
  const root = mkdtempSync(join(tmpdir(), "dossier-pipe-"));
  dirs.push(root);
  const home = join(root, ".dossier");
  const store = openSqliteStore({ home });
  try {
    for (let i = 0; i < n; i++) {
      store.runs.create({
        id: `20260101-000000-${String(i).padStart(6, "0")}`,
        query: `Question ${i} ${"about heat pumps in cold climates ".repeat(30)}`,
        strategy: "graph",
        options: { strategy: "graph" } as never,
        createdAt: "2026-01-01T00:00:00.000Z",
      });
    }
  } finally {
    store.close();
  }
  return root;
}

describe("stdout closed by its reader", () => {
  it("runs list --json whose reader stops after 600 bytes ends with exit 0 and nothing on stderr", {
    timeout: 60_000,
  }, async () => {
    const root = homeWithRuns(300);
    const child = spawn(process.execPath, [MAIN, "runs", "list", "--json", "--limit", "300"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: root, DOSSIER_HOME: join(root, ".dossier") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    let read = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      read += chunk.length;
      // Like `head -c 600`: take what is needed, then close the pipe.
      if (read >= 600) child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (c) => resolve(c));
    });
    expect(read).toBeGreaterThanOrEqual(600);
    expect(read).toBeLessThan(300 * 1000);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
