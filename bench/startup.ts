/**
 * CLI start-up: wall time of `dossier --help` and `dossier --version` against a bare
 * `node -e 0`, each run as a fresh process, medians over several runs. Measures the built
 * command (`npm run build` first); with `--source` it runs the TypeScript sources instead.
 *
 * Run: node bench/startup.ts [--runs 21] [--source]
 */

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
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

function time(args: string[]): number {
  const samples: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env },
    });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    if (i >= 2) samples.push(ms); // two warm-up runs fill the page cache
  }
  return median(samples);
}

const bare = time(["-e", "0"]);
const help = time([entry, "--help"]);
const version = time([entry, "--version"]);
const row = (label: string, ms: number) =>
  `${label.padEnd(22)}${ms.toFixed(0).padStart(6)} ms${label === "node -e 0" ? "" : `   (+${(ms - bare).toFixed(0)} ms over bare Node)`}`;
console.log(
  `Node ${process.versions.node}, ${runs} runs each, medians, ${source ? "sources" : "built dist/"}`,
);
console.log(row("node -e 0", bare));
console.log(row("dossier --help", help));
console.log(row("dossier --version", version));
