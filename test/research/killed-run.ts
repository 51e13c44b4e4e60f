/**
 * A research run killed mid-way, for resume tests: the options of a minddr world whose run is
 * killed after a few model answers (a call in flight at the kill may be asked again, so each
 * role may see one more), the environment that points the `dossier` command at a world, a
 * `dossier research` process killed with SIGKILL once a condition holds, and a gate on the
 * scripted model that kills a `dossier` process at an exact number of answered model calls.
 */

import { spawn } from "node:child_process";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { DATABASE_FILE } from "../../src/store/sqlite-store.ts";
import type { RecordedRequest } from "../fake-openai/types.ts";
import type { ResearchWorld, WorldOptions } from "./world.ts";

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** The question the killed run researches. */
export const KILLED_QUESTION = "How is topic adoption changing?";

/** A minddr world with 3 subtasks, slow enough to be killed mid-way. */
export const KILLED_MINDDR_WORLD: WorldOptions = {
  subtasks: 3,
  latencyMs: 150,
  expectCalls: {
    planner: [1, 2],
    "search-step": [3, 4],
    reader: [3, 4],
    "sub-report": [3, 4],
    outline: [1, 2],
    section: [4, 5],
    coherence: [1, 2],
  },
};

/** The environment of a `dossier` process using `world`'s model, search and home. */
export function worldEnv(world: ResearchWorld): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    DOSSIER_MODEL: world.config.model!,
    DOSSIER_BASE_URL: world.config.baseUrl!,
    DOSSIER_API_KEY: "sk-test",
    DOSSIER_SEARCH: "searxng",
    SEARXNG_URL: world.config.searxngUrl!,
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    DOSSIER_HOME: world.home,
    DOSSIER_CONCURRENCY: "1",
  };
}

/**
 * Runs `dossier research <KILLED_QUESTION> --strategy minddr --json [...args]` in its own
 * process and kills it with SIGKILL once `ready()` holds (or after `maxWaitMs`).
 */
export async function killedResearch(
  world: ResearchWorld,
  options: { ready: () => boolean; args?: string[]; maxWaitMs?: number },
): Promise<void> {
  const argv = ["research", KILLED_QUESTION, "--strategy", "minddr", "--json", ...(options.args ?? [])];
  await killedDossier(world, argv, options);
}

/**
 * Runs `dossier <argv>` in its own process with the world's environment (and `env`) and kills
 * it with SIGKILL once `ready()` holds (or after `maxWaitMs`). Resolves to the process's exit
 * code when it ended by itself before that, else null.
 */
export async function killedDossier(
  world: ResearchWorld,
  argv: readonly string[],
  options: { ready: () => boolean; maxWaitMs?: number; env?: Record<string, string> },
): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, ...argv], {
    cwd: world.home,
    env: { ...worldEnv(world), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const deadline = Date.now() + (options.maxWaitMs ?? 30_000);
  while (!options.ready() && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  const ended = child.exitCode;
  child.kill("SIGKILL");
  await exited;
  return ended;
}

/**
 * A gate on the scripted model (pass `hold` as the world's `hold`): it lets requests through
 * until `limit` have been, each after `latencyMs(request)`, and holds every later one for good,
 * unanswered — so a process killed at the gate has had exactly `passed` model answers, and the
 * requests it had in flight were never answered (asking them again repeats nothing).
 */
export interface ModelGate {
  hold: (request: RecordedRequest) => Promise<void>;
  /** How many requests may be answered in all. Default: no limit. */
  limit: number;
  /** Requests let through (answered) so far, in order. */
  readonly passed: RecordedRequest[];
}

/** Creates a {@link ModelGate}; `latencyMs` delays each answer let through. */
export function modelGate(latencyMs: (request: RecordedRequest) => number = () => 0): ModelGate {
  const gate: ModelGate = {
    limit: Number.POSITIVE_INFINITY,
    passed: [],
    async hold(request) {
      if (gate.passed.length >= gate.limit) await new Promise(() => {});
      gate.passed.push(request);
      const ms = latencyMs(request);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
    },
  };
  return gate;
}

/** Model calls journaled in the world's store (all runs), read without taking part in any write. */
export function journaledModelCalls(world: ResearchWorld): number {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(join(world.home, DATABASE_FILE), { readOnly: true });
  } catch {
    return 0;
  }
  try {
    return (db.prepare("SELECT count(*) AS n FROM steps WHERE kind = 'llm'").get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

/**
 * Runs `dossier <argv>` and SIGKILLs it once the gate has let `answers` model answers through
 * in all and the store has journaled every one of them. Resolves to the exit code when the
 * process ended by itself first (it needed fewer calls), else null.
 */
export async function killAfterAnswers(
  world: ResearchWorld,
  gate: ModelGate,
  argv: readonly string[],
  answers: number,
  options: { env?: Record<string, string>; maxWaitMs?: number } = {},
): Promise<number | null> {
  gate.limit = answers;
  try {
    return await killedDossier(world, argv, {
      ...options,
      ready: () => gate.passed.length >= answers && journaledModelCalls(world) >= gate.passed.length,
    });
  } finally {
    gate.limit = Number.POSITIVE_INFINITY;
  }
}
