/**
 * The packaging test: builds and packs Dossier, installs the tarball into a fresh temporary
 * project with the pinned Node, and uses it as a user would — `import { research } from
 * "dossier"` running an offline research over a small folder, each subpath of the package's
 * exports (`dossier/server`, `dossier/mcp`, `dossier/eval`, …) imported with its entry points,
 * `npx dossier --version` and `npx dossier research … --docs …`. The same library call runs on Node 22 when it installs,
 * and an older Node gets the bin's one-line refusal, and the library's import the same words. Needs the npm registry (or its cache).
 *
 * Run: node scripts/package-test.ts [--keep] [--no-build]
 */

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const keep = process.argv.includes("--keep");
const work = mkdtempSync(join(tmpdir(), "dossier-package-"));
let failures = 0;
let passes = 0;

function step(name: string, fn: () => void): void {
  try {
    fn();
    passes++;
    console.log(`ok    ${name}`);
  } catch (error) {
    failures++;
    console.log(`FAIL  ${name}\n      ${(error as Error).message.split("\n").join("\n      ")}`);
  }
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`.trim());
  }
  return r.stdout;
}

function check(condition: unknown, message: string): void {
  if (!condition) throw new Error(message);
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npmFlags = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];

/** A project folder whose package.json approves the `node` package's install script. */
function newProject(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(
      { name, version: "1.0.0", private: true, type: "module", allowScripts: { node: true } },
      null,
      2,
    ),
  );
  return dir;
}

/** The env of a user's shell in `dir`: its node_modules/.bin first, a data directory inside. */
function userEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DOSSIER_HOME: join(dir, ".dossier") };
  for (const key of Object.keys(env)) if (/^(DOSSIER_MODEL|DOSSIER_SEARCH|npm_)/.test(key)) delete env[key];
  env.PATH = [join(dir, "node_modules", ".bin"), ...(process.env.PATH ?? "").split(delimiter)].join(
    delimiter,
  );
  return env;
}

const LIBRARY_CALL = `
import { research } from "dossier";
const result = await research("How do cold-climate heat pumps perform in winter?", {
  docs: "./notes",
  formats: ["md", "html"],
  out: "./out/report",
});
if (result.status !== "completed") throw new Error("status " + result.status + ": " + result.stopReason);
console.log(JSON.stringify({ status: result.status, strategy: result.record.strategy, paths: result.paths, refs: result.report.references.length }));
`;

/** Entry points each subpath must export (the package's other subpaths are imported too). */
const SUBPATH_EXPORTS: Record<string, string[]> = {
  dossier: ["research", "ask", "createDossier", "startServer", "serveMcpStdio", "DossierError"],
  "dossier/server": ["createServerApp", "startServer", "openApiDocument", "createRunManager"],
  "dossier/mcp": ["createMcpServer", "serveMcpStdio"],
  "dossier/eval": ["race", "rubric", "checks", "deepsearch"],
};

/** Imports every subpath of the installed package's exports; prints their export names. */
const SUBPATHS_CALL = `
import { readFileSync } from "node:fs";
const pkg = JSON.parse(readFileSync("./node_modules/dossier/package.json", "utf8"));
const out = {};
for (const key of Object.keys(pkg.exports)) {
  if (key === "./package.json") continue;
  const name = "dossier" + key.slice(1);
  out[name] = Object.keys(await import(name)).sort();
}
console.log(JSON.stringify(out));
`;

function writeNotes(dir: string): void {
  mkdirSync(join(dir, "notes"));
  writeFileSync(
    join(dir, "notes", "heat-pumps.md"),
    "# Heat pumps\n\n## Winter\n\nCold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees in the field trial.\nDefrost cycles cost about 8 percent of seasonal energy in the trial homes.\n",
  );
  writeFileSync(
    join(dir, "notes", "grid.md"),
    "# Grid\n\nWinter peak demand rose where heat pumps replaced gas boilers, according to the utility report.\n",
  );
}

try {
  console.log(`packaging test in ${work}`);
  if (!process.argv.includes("--no-build")) run(npm, ["run", "-s", "build"], root);
  const packed = JSON.parse(
    run(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], root),
  ) as { filename: string; files: { path: string }[] }[];
  const tarball = join(work, packed[0]!.filename);
  const files = packed[0]!.files.map((f) => f.path);

  step("the tarball holds the built code and no tests or sources", () => {
    check(
      files.includes("dist/index.js") && files.includes("dist/index.d.ts"),
      "dist/index.js or .d.ts missing",
    );
    check(files.includes("bin/dossier.js"), "bin/dossier.js missing");
    const stray = files.filter((f) => /\.test\.|^src\/|^test\//.test(f));
    check(stray.length === 0, `unexpected files: ${stray.slice(0, 5).join(", ")}`);
  });

  const app = newProject("app");
  writeNotes(app);
  run(npm, ["install", tarball, "node@24", ...npmFlags], app);
  const env = userEnv(app);
  const node24 = join(app, "node_modules", ".bin", "node");

  step("import { research } from 'dossier' runs an offline research and writes the report", () => {
    writeFileSync(join(app, "use.mjs"), LIBRARY_CALL);
    const out = JSON.parse(run(node24, ["use.mjs"], app, env).trim().split("\n").at(-1)!) as {
      status: string;
      strategy: string;
      paths: string[];
      refs: number;
    };
    check(out.strategy === "offline", `strategy ${out.strategy}`);
    check(out.refs > 0, "no references");
    check(out.paths.length === 2 && out.paths.every((p) => existsSync(p)), `report files ${out.paths}`);
  });

  step("every subpath of the package's exports imports, with its entry points", () => {
    writeFileSync(join(app, "subpaths.mjs"), SUBPATHS_CALL);
    const out = JSON.parse(run(node24, ["subpaths.mjs"], app, env).trim().split("\n").at(-1)!) as Record<
      string,
      string[]
    >;
    for (const [subpath, names] of Object.entries(SUBPATH_EXPORTS)) {
      const missing = names.filter((name) => !out[subpath]?.includes(name));
      check(
        missing.length === 0,
        `${subpath} lacks ${missing.join(", ")} (has ${out[subpath]?.slice(0, 20)})`,
      );
    }
    const exported = Object.keys(
      (
        JSON.parse(readFileSync(join(app, "node_modules", "dossier", "package.json"), "utf8")) as {
          exports: Record<string, unknown>;
        }
      ).exports,
    )
      .filter((key) => key !== "./package.json")
      .map((key) => `dossier${key.slice(1)}`);
    const untested = exported.filter((subpath) => !(subpath in out));
    check(untested.length === 0, `subpaths not imported: ${untested.join(", ")}`);
  });

  step("the package's types resolve for TypeScript users", () => {
    const types = readFileSync(join(app, "node_modules", "dossier", "dist", "index.d.ts"), "utf8");
    check(/export \{[^}]*research[^}]*\}|research/.test(types), "index.d.ts does not mention research");
  });

  step("npx dossier --version prints the version", () => {
    const out = run(npm, ["exec", "--", "dossier", "--version"], app, env).trim();
    check(out === version, `got "${out}"`);
  });

  step("npx dossier research … --docs … writes a cited report", () => {
    const out = run(
      npm,
      [
        "exec",
        "--",
        "dossier",
        "research",
        "What happens to the grid in winter?",
        "--docs",
        "notes",
        "--json",
      ],
      app,
      env,
    );
    const summary = JSON.parse(out.trim().split("\n").at(-1)!) as { status: string; reportPaths: string[] };
    check(summary.status === "completed", `status ${summary.status}`);
    check(
      summary.reportPaths.every((p) => existsSync(p)),
      "report path missing",
    );
  });

  const old = olderSystemNode();
  step(
    `an unsupported Node gets one clear line${old ? ` (${old.version})` : " (no older Node on PATH: skipped)"}`,
    () => {
      if (!old) return;
      const r = spawnSync(
        old.path,
        [join(app, "node_modules", "dossier", "bin", "dossier.js"), "--version"],
        {
          encoding: "utf8",
        },
      );
      check(r.status === 2, `exit ${r.status}`);
      check(
        r.stderr.trim().split("\n").length === 1 && /not supported/.test(r.stderr),
        `stderr: ${r.stderr}`,
      );
    },
  );

  step(
    `an unsupported Node importing the library gets the same clear refusal${old ? ` (${old.version})` : " (no older Node on PATH: skipped)"}`,
    () => {
      if (!old) return;
      const r = spawnSync(
        old.path,
        [
          "--input-type=module",
          "-e",
          'try { await import("dossier"); } catch (e) { console.log(e.code + ": " + e.message); }',
        ],
        { cwd: app, encoding: "utf8" },
      );
      check(
        /^CONFIG_INVALID: Node \S+ is not supported; Dossier needs Node 22\.13/.test(r.stdout),
        `stdout: ${r.stdout} stderr: ${r.stderr}`,
      );
    },
  );

  step("the library runs on Node 22 LTS", () => {
    const n22 = newProject("node22");
    run(npm, ["install", "node@22", ...npmFlags], n22);
    const node22 = join(n22, "node_modules", ".bin", "node");
    const out = run(node22, ["use.mjs"], app, env);
    check(/"status":"completed"/.test(out), out);
    console.log(`      ${execFileSync(node22, ["--version"], { encoding: "utf8" }).trim()}`);
  });
} catch (error) {
  failures++;
  console.log(`FAIL  setup\n      ${(error as Error).message}`);
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}

console.log(`\npackage: ${passes} passed, ${failures} failed`);
process.exitCode = failures ? 1 : 0;

/** A Node older than 22 on PATH (outside node_modules), if there is one. */
function olderSystemNode(): { path: string; version: string } | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir || dir.includes("node_modules")) continue;
    const candidate = join(dir, "node");
    if (!existsSync(candidate)) continue;
    const r = spawnSync(candidate, ["--version"], { encoding: "utf8" });
    const major = Number(/^v(\d+)/.exec(r.stdout ?? "")?.[1]);
    if (major && major < 22) return { path: candidate, version: r.stdout.trim() };
  }
  return null;
}
