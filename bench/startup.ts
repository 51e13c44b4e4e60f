/**
 * Start-up: wall time of `dossier --help` and `dossier --version`, and of importing the library
 * — `import("dossier")` and each subpath of the package's `exports` — against a bare
 * `node -e 0`, each run as a fresh process, medians over several runs. Measures the built
 * package (`npm run build` first; the imports resolve the package's own name, as a user's code
 * would); with `--source` it runs the TypeScript sources instead.
 *
 * Run: node bench/startup.ts [--runs 21] [--source]
 */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const arg = (name: string) => process.argv.indexOf(name);
const runs = Number(process.argv[arg("--runs") + 1]) || 21;
const source = arg("--source") >= 0;
const entry = fileURLToPath(new URL(source ? "../src/cli/main.ts" : "../dist/cli/main.js", import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write(`startup bench: ${entry} is missing; run npm run build first\n`);
  process.exit(2);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const root = fileURLToPath(new URL("..", import.meta.url));
const exportsMap = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    exports: Record<string, string | { default: string }>;
  }
).exports;
/** The library's entry points: `dossier`, `dossier/server`, … (built, or their sources). */
const libraries = Object.entries(exportsMap)
  .filter(([subpath]) => subpath !== "./package.json")
  .map(([subpath, target]) => {
    const built = typeof target === "string" ? target : target.default;
    const file = source ? built.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts") : built;
    return {
      name: `dossier${subpath.slice(1)}`,
      file: fileURLToPath(new URL(`../${file}`, import.meta.url)),
    };
  })
  .filter((entry) => existsSync(entry.file));

/**
 * Reports the process's CPU time (user + system, ms) on stderr as it exits: on a busy machine
 * wall time mostly measures waiting for a core, CPU time the work itself.
 */
const CPU_PROBE =
  'data:text/javascript,process.on("exit",()=>{const u=process.cpuUsage();process.stderr.write("\\ncpu-ms "+((u.user+u.system)/1000)+"\\n")})';

/** Median wall and CPU time of running `node args` (two warm-up runs first). */
function time(args: string[]): { wall: number; cpu: number } {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, ["--import", CPU_PROBE, ...args], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env },
    });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    if (i < 2) continue; // two warm-up runs fill the page cache
    walls.push(ms);
    cpus.push(Number(/cpu-ms (\S+)/.exec(String(r.stderr))?.[1] ?? Number.NaN));
  }
  return { wall: median(walls), cpu: median(cpus) };
}

/** Imports a library entry point: by the package's own name when built, by path for sources. */
const importOf = (lib: { name: string; file: string }) => [
  "--input-type=module",
  "-e",
  `await import(${JSON.stringify(source ? lib.file : lib.name)})`,
];

const bare = time(["-e", "0"]);
const rows = [
  { label: "dossier --help", ...time([entry, "--help"]) },
  { label: "dossier --version", ...time([entry, "--version"]) },
  ...libraries.map((lib) => ({ label: `import("${lib.name}")`, ...time(importOf(lib)) })),
];
const over = (ms: number, base: number) => `+${(ms - base).toFixed(0)}`.padStart(7);
console.log(
  `Node ${process.versions.node}, ${runs} runs each, medians, ${source ? "sources" : "built dist/"}; wall and CPU (user+system) time, and each over bare Node's`,
);
console.log(
  `${"".padEnd(28)}${"wall ms".padStart(9)}${"over".padStart(7)}${"CPU ms".padStart(9)}${"over".padStart(7)}`,
);
console.log(
  `${"node -e 0".padEnd(28)}${bare.wall.toFixed(0).padStart(9)}${"".padStart(7)}${bare.cpu.toFixed(0).padStart(9)}`,
);
for (const { label, wall, cpu } of rows) {
  console.log(
    `${label.padEnd(28)}${wall.toFixed(0).padStart(9)}${over(wall, bare.wall)}${cpu.toFixed(0).padStart(9)}${over(cpu, bare.cpu)}`,
  );
}
