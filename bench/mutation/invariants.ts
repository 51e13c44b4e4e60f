/**
 * The invariant modules: the citation pass and the report assembly, the evidence registry, the
 * budget ledger, the plan graph and its legality, the step journal, the SSRF guard, graph's plan
 * loop, and the server's body limit and Host/Origin checks.
 */

import type { MutationGroup } from "./module.ts";

/** The invariant modules, in the order the table lists them. */
export const invariants: MutationGroup = {
  name: "invariants",
  modules: [
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
  ],
};
