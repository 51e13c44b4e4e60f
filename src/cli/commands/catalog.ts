/**
 * The commands of `dossier`, as the top-level help lists them. Each entry loads its module only
 * when the command runs (or its own help is asked for), so `dossier --help` and `--version`
 * start without loading the research engine.
 */

import type { Command } from "commander";
import type { CliIo } from "../io.ts";

/** One top-level command. */
export interface CommandEntry {
  /** The name as typed. */
  name: string;
  /** Arguments as shown in the top-level help, e.g. `<question>`. */
  args: string;
  description: string;
  /** Loads the module and registers the full command on `program`. */
  load(): Promise<(program: Command, io: CliIo) => void>;
}

/** The top-level commands, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "research",
    args: "<question>",
    description: "research a question and write a cited report",
    load: async () => (await import("./research.ts")).registerResearchCommand,
  },
  {
    name: "ask",
    args: "<question>",
    description:
      "answer a hard search question briefly, with its evidence (smtl: parallel search, verified goals)",
    load: async () => (await import("./ask.ts")).registerAskCommand,
  },
  {
    name: "refresh",
    args: "<run>",
    description:
      "write a new version of a finished run's report: cited pages fetched again, only sections whose evidence changed rewritten, a diff beside it",
    load: async () => (await import("./refresh.ts")).registerRefreshCommand,
  },
  {
    name: "batch",
    args: "<questions>",
    description:
      "research every question of a JSONL or CSV file (any strategy, C runs at once, resumable) into DeepResearch Bench articles JSONL",
    load: async () => (await import("./batch.ts")).registerBatchCommand,
  },
  {
    name: "strategies",
    args: "",
    description: "list the research strategies, their model roles and options",
    load: async () => (await import("./strategies.ts")).registerStrategiesCommand,
  },
  {
    name: "config",
    args: "",
    description:
      "show the effective configuration (secrets masked), which keys are present and where data lives",
    load: async () => (await import("./config.ts")).registerConfigCommand,
  },
  {
    name: "search",
    args: "<query>",
    description: "search the web (or the local corpus with --provider local) and print the results",
    load: async () => (await import("./search.ts")).registerSearchCommand,
  },
  {
    name: "fetch",
    args: "<url>",
    description:
      "read one web page (HTML, PDF, text or Markdown) as clean text; with --goal, the reader model extracts verbatim evidence for the goal",
    load: async () => (await import("./fetch.ts")).registerFetchCommand,
  },
  {
    name: "index",
    args: "<dir>",
    description: "index a folder of Markdown, text, HTML and PDF files for local search (incremental)",
    load: async () => (await import("./index-docs.ts")).registerIndexCommand,
  },
  {
    name: "runs",
    args: "",
    description: "list past runs, show one, print its event log, cancel, review its plan or resume one",
    load: async () => (await import("./runs.ts")).registerRunsCommand,
  },
  {
    name: "serve",
    args: "",
    description:
      "serve the HTTP API (runs, live events over SSE, reports, ask, search, fetch, MCP) with token auth, answering only to its own address and --allowed-host names",
    load: async () => (await import("./serve.ts")).registerServeCommand,
  },
  {
    name: "worker",
    args: "",
    description:
      "take runs from the queue on Redis and execute them into the shared store (any number of workers, on any machine)",
    load: async () => (await import("./worker.ts")).registerWorkerCommand,
  },
  {
    name: "mcp",
    args: "",
    description:
      "serve MCP over stdio for assistants: deep_research (also as a task), research_start/status/result/cancel, ask, search, fetch, report resources",
    load: async () => (await import("./mcp.ts")).registerMcpCommand,
  },
  {
    name: "eval",
    args: "",
    description:
      "evaluate reports and runs: rubrics, RACE, FACT, preference, deep-search QA, process metrics, checks",
    load: async () => (await import("./eval/index.ts")).registerEvalCommand,
  },
  {
    name: "train",
    args: "",
    description:
      "the learning loop: group rollouts recorded for training, the seeds' rewards with group advantages, exports for TRL and verl",
    load: async () => (await import("./train.ts")).registerTrainCommand,
  },
];

/** The catalogue entry of `name`. */
export function commandEntry(name: string): CommandEntry {
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) throw new Error(`no command ${name} in the catalogue`);
  return entry;
}
