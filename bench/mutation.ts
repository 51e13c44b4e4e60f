/**
 * Mutation scores of the modules that carry Dossier's promises: StrykerJS breaks every operator,
 * condition and constant of one module at a time, runs the module's own test files against each
 * mutant (only the tests that cover it: coverage per test), and counts what the tests notice. Survivors listed in
 * `bench/mutation-equivalent.json` (each with the reason it behaves the same) are left out of the
 * score; every other survivor is printed with its place, so it can be killed by a sharper test.
 *
 * Run: npm run bench:mutation [-- --modules src/core/citations.ts,src/core/budget.ts] [--concurrency 2]
 *      [--tests <test files>] (the chosen modules against other test files)
 * Not part of `npm test` or CI: it takes minutes.
 */

import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Stryker } from "@stryker-mutator/core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** One module to mutate and the test files that may kill its mutants. */
export interface MutationModule {
  file: string;
  /**
   * The module's own unit tests (fast, beside it): every mutant is run against the tests among
   * these that cover it. End-to-end files are left out where focused tests pin the same rules,
   * so that the whole benchmark stays within minutes.
   */
  tests: readonly string[];
  /**
   * Extra time a mutant's test run may take before it counts as a timeout (Stryker's
   * `timeoutMS`, added to 1.5 × the run's normal time). Pure modules need little; a hung
   * mutant then costs seconds, not the default 20.
   */
  timeoutMs?: number;
}

/** The invariant modules, in the order the table lists them. */
export const INVARIANT_MODULES: readonly MutationModule[] = [
  {
    file: "src/core/citations.ts",
    tests: ["src/core/citations.test.ts", "src/core/citations-edges.test.ts"],
    timeoutMs: 5000,
  },
  { file: "src/core/budget.ts", tests: ["src/core/budget.test.ts"], timeoutMs: 5000 },
  {
    file: "src/core/plan-graph-legality.ts",
    tests: ["src/core/plan-graph-legality.test.ts", "src/core/plan-graph.test.ts"],
    timeoutMs: 5000,
  },
  {
    file: "src/core/plan-graph.ts",
    tests: ["src/core/plan-graph.test.ts", "src/core/plan-graph-ops.test.ts"],
    timeoutMs: 5000,
  },
  {
    file: "src/core/evidence-registry.ts",
    tests: ["src/core/evidence-registry.test.ts"],
    timeoutMs: 5000,
  },
  { file: "src/tools/fetch/ssrf-guard.ts", tests: ["src/tools/fetch/ssrf-guard.test.ts"], timeoutMs: 5000 },
  { file: "src/core/journal.ts", tests: ["src/core/journal.test.ts"], timeoutMs: 5000 },
  // The plan loop runs the whole strategy in the research world (loopback model, search and
  // web servers): its three files pin the loop's stops, choices and options.
  {
    file: "src/strategies/graph/run.ts",
    tests: [
      "src/strategies/graph/coarse.test.ts",
      "src/strategies/graph/loop.test.ts",
      "src/strategies/graph/run.test.ts",
      "src/strategies/graph/plan-in-force.test.ts",
      "src/strategies/graph/no-research.test.ts",
      "src/strategies/graph/first-actions.test.ts",
      "src/strategies/graph/survey.test.ts",
    ],
  },
  { file: "src/strategies/graph/cycle.ts", tests: ["src/strategies/graph/cycle.test.ts"], timeoutMs: 5000 },
  {
    file: "src/strategies/graph/readiness.ts",
    tests: ["src/strategies/graph/readiness.test.ts"],
    timeoutMs: 5000,
  },
  // The report assembly: the citation pass run over the written parts, the title and body made
  // safe, References appended, and the report checks' figures.
  { file: "src/kit/report-assembly.ts", tests: ["src/kit/report-assembly.test.ts"], timeoutMs: 5000 },
  // The server's body limit and UTF-8/JSON body checks, and its Host/Origin checks, against their
  // tests on a bare app (the loopback-server files, which pin the same rules on every route
  // family, cost about seven times as long a run and kill no more).
  { file: "src/server/body.ts", tests: ["src/server/body.test.ts"], timeoutMs: 5000 },
  { file: "src/server/host-guard.ts", tests: ["src/server/host-policy.test.ts"], timeoutMs: 5000 },
];

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
  const raw = JSON.parse(readFileSync(join(root, "bench", "mutation-equivalent.json"), "utf8")) as {
    equivalents: Equivalent[];
  };
  return raw.equivalents;
}

async function mutate(
  { file, tests, timeoutMs }: MutationModule,
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
    tempDirName: ".stryker-tmp",
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
  const source = readFileSync(join(root, file), "utf8").split("\n");
  const results = await stryker.runMutationTest();
  if (readFileSync(join(root, file), "utf8") !== source.join("\n")) {
    console.warn(
      `${file} changed during its run: survivors are placed in the text it had when the run began`,
    );
  }
  const survivors: string[] = [];
  const row: Row = {
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
        e.file === file &&
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

const only = arg("modules")?.split(",");
// --tests a,b: run the chosen module(s) against these test files instead (e.g. an older suite).
const tests = arg("tests")?.split(",");
const modules = (only ? INVARIANT_MODULES.filter((m) => only.includes(m.file)) : INVARIANT_MODULES).map(
  (m) => (tests ? { ...m, tests } : m),
);
const concurrency = Number(arg("concurrency") ?? 2);
const equivalents = loadEquivalents();
const rows: Row[] = [];
const started = Date.now();
for (const module of modules) {
  const t0 = Date.now();
  const file = module.file;
  const { row, survivors } = await mutate(module, concurrency, equivalents);
  row.seconds = (Date.now() - t0) / 1000;
  rows.push(row);
  console.log(
    `${file}: ${(row.score * 100).toFixed(1)}% (${row.killed}/${row.mutants}), ${row.seconds.toFixed(0)} s`,
  );
  for (const s of survivors) console.log(s);
}

// The table in Markdown, as the quality notes quote it (each module's wall time is printed above).
console.log("");
console.log("| module | mutants | killed + timeout | survived | no coverage | equivalent | score |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.file.replace(/^src\//, "")} | ${r.mutants} | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.equivalent} | ${(r.score * 100).toFixed(1)}% |`,
  );
}
const total = rows.reduce((acc, r) => ({ killed: acc.killed + r.killed, mutants: acc.mutants + r.mutants }), {
  killed: 0,
  mutants: 0,
});
console.log(`(${((Date.now() - started) / 60000).toFixed(1)} min)`);
console.log(
  `mutation score ${total.mutants === 0 ? 100 : ((total.killed / total.mutants) * 100).toFixed(1)}%`,
);
