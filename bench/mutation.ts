/**
 * Mutation scores of the modules that carry Dossier's promises: StrykerJS breaks every operator,
 * condition and constant of one module at a time, runs the module's own test files against each
 * mutant (only the tests that cover it: coverage per test), and counts what the tests notice. Survivors listed in
 * `bench/mutation-equivalent.json` (each with the reason it behaves the same) are left out of the
 * score; every other survivor is printed with its place, so it can be killed by a sharper test.
 *
 * The modules are listed by group in `bench/mutation/<group>.ts`: the invariants (citations,
 * budget, plan graph, …) and the seams where the system meets trainers, models, queues and
 * receivers (rewards, advantages and exports, protocol codecs, refresh change detection, the
 * queue's sweeper, the webhook signer). Each group's equivalent survivors are in
 * `bench/mutation/<group>-equivalent.json`.
 *
 * Run: npm run bench:mutation [-- --group rewards-report,training] [--modules src/core/citations.ts]
 *      [--concurrency 2] [--tests <test files>] (the chosen modules against other test files)
 * Not part of `npm test` or CI: it takes minutes.
 */

/** Every group, in the order the tables list them. */
export const GROUPS: readonly MutationGroup[] = [
  invariants,
  rewardsReport,
  rewardsPolicy,
  training,
  codecsWarp,
  codecsSmtlMams,
  refresh,
  queueWebhooks,
];

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Stryker } from "@stryker-mutator/core";
import { codecsSmtlMams } from "./mutation/codecs-smtl-mams.ts";
import { codecsWarp } from "./mutation/codecs-warp.ts";
import { invariants } from "./mutation/invariants.ts";
import type { MutationGroup, MutationModule } from "./mutation/module.ts";
import { queueWebhooks } from "./mutation/queue-webhooks.ts";
import { refresh } from "./mutation/refresh.ts";
import { rewardsPolicy } from "./mutation/rewards-policy.ts";
import { rewardsReport } from "./mutation/rewards-report.ts";
import { training } from "./mutation/training.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** A survivor judged equivalent: the same behaviour by another path. */
interface Equivalent {
  file: string;
  /** Where the mutant was when it was judged (for readers; `code` is what is matched). */
  line: number;
  /** The mutated line's source text, trimmed: the mutant is found by it wherever the line moves. */
  code: string;
  /** Where on the line the mutated code starts, when the line holds two alike mutants. */
  column?: number;
  /** Where it ends, when two alike mutants also start at the same place (`a === 0 || b` and `a === 0`). */
  endColumn?: number;
  mutator: string;
  replacement: string;
  reason: string;
}

interface Row {
  group: string;
  file: string;
  mutants: number;
  killed: number;
  survived: number;
  noCoverage: number;
  equivalent: number;
  errors: number;
  score: number;
  /** Wall time of the module's run. */
  seconds: number;
}

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

function loadEquivalents(): Equivalent[] {
  return GROUPS.flatMap((g) => {
    const path = join(root, "bench", "mutation", `${g.name}-equivalent.json`);
    if (!existsSync(path)) return [];
    return (JSON.parse(readFileSync(path, "utf8")) as { equivalents: Equivalent[] }).equivalents;
  });
}

async function mutate(
  { file, tests, timeoutMs }: MutationModule,
  group: string,
  concurrency: number,
  equivalents: readonly Equivalent[],
) {
  const stryker = new Stryker({
    mutate: [file],
    testFiles: [...tests],
    testRunner: "vitest",
    plugins: ["@stryker-mutator/vitest-runner"],
    coverageAnalysis: "perTest",
    vitest: { configFile: "bench/vitest.mutation.config.ts", related: false },
    concurrency,
    // STRYKER_PROGRESS=1 prints Stryker's progress line every few seconds (long runs);
    // STRYKER_REPORT_DIR=dir writes every mutant's status to dir/<module>.json.
    reporters: [
      ...(process.env.STRYKER_PROGRESS ? ["progress-append-only"] : []),
      ...(process.env.STRYKER_REPORT_DIR ? ["json"] : []),
    ],
    jsonReporter: {
      fileName: join(process.env.STRYKER_REPORT_DIR ?? "reports", `${file.replace(/[/.]/g, "_")}.json`),
    },
    logLevel: (process.env.STRYKER_LOG ?? "error") as never,
    fileLogLevel: "off" as never,
    // STRYKER_TMP names the sandbox folder, so that two runs at once do not share (and clean) one.
    tempDirName: process.env.STRYKER_TMP ?? ".stryker-tmp",
    // TypeScript 7 has no JavaScript API for Stryker to rewrite tsconfig.json with; nothing needs
    // rewriting (no project references), so point it at no file.
    tsconfigFile: "tsconfig.none.json",
    cleanTempDir: "always",
    timeoutMS: timeoutMs ?? 20_000,
    // The sandbox holds every source file but only this module's test files: less to copy, and
    // other test files (which may come and go while the copy is made) stay out of the run.
    ignorePatterns: [
      ".stryker-tmp*",
      "dist",
      "web/dist",
      "coverage",
      ".dossier",
      "**/*.test.ts",
      ...tests.map((t) => `!${t}`),
    ],
  });
  // The module's text as the run copies it: equivalents are matched against the lines Stryker
  // mutated, even when the working tree changes while the run goes on.
  const path = file.replace(/:\d+-\d+$/, "");
  const source = readFileSync(join(root, path), "utf8").split("\n");
  const results = await stryker.runMutationTest();
  if (readFileSync(join(root, path), "utf8") !== source.join("\n")) {
    console.warn(
      `${file} changed during its run: survivors are placed in the text it had when the run began`,
    );
  }
  const survivors: string[] = [];
  const row: Row = {
    group,
    file,
    mutants: 0,
    killed: 0,
    survived: 0,
    noCoverage: 0,
    equivalent: 0,
    errors: 0,
    score: 0,
    seconds: 0,
  };
  for (const m of results) {
    const line = m.location.start.line;
    const code = (source[line - 1] ?? "").trim();
    const column = m.location.start.column;
    const where = `${relative(root, m.fileName)}:${line}:${column}-${m.location.end.column} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? "")}`;
    if (m.status === "CompileError" || m.status === "RuntimeError" || m.status === "Ignored") {
      row.errors += 1;
      continue;
    }
    const equivalent = equivalents.some(
      (e) =>
        e.file === path &&
        e.code === code &&
        (e.column === undefined || e.column === column) &&
        (e.endColumn === undefined || e.endColumn === m.location.end.column) &&
        e.mutator === m.mutatorName &&
        e.replacement === (m.replacement ?? ""),
    );
    if ((m.status === "Survived" || m.status === "NoCoverage") && equivalent) {
      row.equivalent += 1;
      continue;
    }
    row.mutants += 1;
    if (m.status === "Killed" || m.status === "Timeout") row.killed += 1;
    else if (m.status === "Survived") {
      row.survived += 1;
      survivors.push(`  survived   ${where}`);
    } else if (m.status === "NoCoverage") {
      row.noCoverage += 1;
      survivors.push(`  no cover   ${where}`);
    }
  }
  row.score = row.mutants === 0 ? 1 : row.killed / row.mutants;
  return { row, survivors };
}

const groupNames = arg("group")?.split(",");
const unknown = groupNames?.filter((n) => !GROUPS.some((g) => g.name === n)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown group ${unknown.join(", ")}: one of ${GROUPS.map((g) => g.name).join(", ")}`);
  process.exit(2);
}
const only = arg("modules")?.split(",");
// --tests a,b: run the chosen module(s) against these test files instead (e.g. an older suite).
const tests = arg("tests")?.split(",");
const chosen = GROUPS.filter((g) => !groupNames || groupNames.includes(g.name)).flatMap((g) =>
  g.modules
    .filter((m) => !only || only.includes(m.file))
    .map((m) => ({ group: g.name, module: tests ? { ...m, tests } : m })),
);
if (chosen.length === 0) {
  console.error("no module chosen: --modules names files listed in bench/mutation/<group>.ts");
  process.exit(2);
}
const concurrency = Number(arg("concurrency") ?? 2);
const equivalents = loadEquivalents();
const rows: Row[] = [];
const started = Date.now();
for (const { group, module } of chosen) {
  const t0 = Date.now();
  const { row, survivors } = await mutate(module, group, concurrency, equivalents);
  row.seconds = (Date.now() - t0) / 1000;
  rows.push(row);
  console.log(
    `${module.file}: ${(row.score * 100).toFixed(1)}% (${row.killed}/${row.mutants}), ${row.seconds.toFixed(0)} s`,
  );
  for (const s of survivors) console.log(s);
}

const percent = (killed: number, mutants: number) =>
  `${mutants === 0 ? "100.0" : ((killed / mutants) * 100).toFixed(1)}%`;
// The table in Markdown, as the quality notes quote it, with a line per group.
console.log("");
console.log(
  "| group | module | mutants | killed + timeout | survived | no coverage | equivalent | score | s |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.group} | ${r.file.replace(/^src\//, "")} | ${r.mutants} | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.equivalent} | ${percent(r.killed, r.mutants)} | ${r.seconds.toFixed(0)} |`,
  );
}
const sum = (rs: readonly Row[]) =>
  rs.reduce((acc, r) => ({ killed: acc.killed + r.killed, mutants: acc.mutants + r.mutants }), {
    killed: 0,
    mutants: 0,
  });
for (const g of GROUPS) {
  const of = rows.filter((r) => r.group === g.name);
  if (of.length === 0) continue;
  const t = sum(of);
  console.log(`group ${g.name}: ${percent(t.killed, t.mutants)} (${t.killed}/${t.mutants})`);
}
const total = sum(rows);
console.log(`(${((Date.now() - started) / 60000).toFixed(1)} min)`);
console.log(`mutation score ${percent(total.killed, total.mutants)}`);
