import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The first ```js block of the README's "As a library" section. */
function libraryExample(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## As a library"));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error("README has no js example under 'As a library'");
  return match[1]!;
}

describe("the README's library example", () => {
  it("is at most 12 lines and runs as written over a notes folder, writing the report it prints", () => {
    const example = libraryExample();
    expect(example.trim().split("\n").length).toBeLessThanOrEqual(12);
    const dir = mkdtempSync(join(tmpdir(), "dossier-readme-"));
    dirs.push(dir);
    mkdirSync(join(dir, "notes"));
    writeFileSync(
      join(dir, "notes", "heat-pumps.md"),
      "# Heat pumps\n\n## Winter\n\nCold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees in the field trial.\n",
    );
    const source = example.replace(
      'from "dossier"',
      `from ${JSON.stringify(pathToFileURL(join(root, "src", "index.ts")).href)}`,
    );
    writeFileSync(join(dir, "example.mjs"), source);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, DOSSIER_HOME: join(dir, ".dossier") };
    const r = spawnSync(process.execPath, ["example.mjs"], {
      cwd: dir,
      env,
      encoding: "utf8",
      timeout: 85_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n");
    // onEvent printed the log in order, from run-start to run-end.
    expect(lines[0]).toBe("1 run-start");
    const last = lines.findLastIndex((l) => /^\d+ run-end$/.test(l));
    expect(last).toBeGreaterThan(0);
    // Then the status line with the report paths it wrote, and the number of sources cited.
    expect(lines[last + 1]).toBe(
      `completed completed ${join(dir, "out", "report.md")}, ${join(dir, "out", "report.html")}`,
    );
    expect(existsSync(join(dir, "out", "report.md"))).toBe(true);
    expect(existsSync(join(dir, "out", "report.html"))).toBe(true);
    expect(lines[last + 2]).toBe("1 sources cited");
  }, 90_000);
});
