/**
 * Where each benchmark's files sit in a benchmarks folder laid out as the upstream
 * repositories are (DeepResearch Bench's `data/…` tree, DeepConsult's `queries.csv`,
 * xbench-DeepSearch's encrypted CSVs): join one of these to the folder.
 */

/** Relative paths of the benchmark files the row readers read. */
export const BENCHMARK_FILES = {
  deepResearchBench: {
    queries: "deepresearch_bench/data/prompt_data/query.jsonl",
    criteria: "deepresearch_bench/data/criteria_data/criteria.jsonl",
  },
  deepConsult: "deepconsult/queries.csv",
  xbench: {
    "2505": "xbench_deepsearch/DeepSearch-2505.csv",
    "2510": "xbench_deepsearch/DeepSearch-2510.csv",
  },
} as const;
