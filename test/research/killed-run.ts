/**
 * A research run killed mid-way, for resume tests: the options of a minddr world whose run is
 * killed after a few model answers (a call in flight at the kill may be asked again, so each
 * role may see one more), the environment that points the `dossier` command at a world, and
 * a `dossier research` process killed with SIGKILL once a condition holds.
 */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
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
    "search-step": [6, 7],
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
  const argv = [CLI, "research", KILLED_QUESTION, "--strategy", "minddr", "--json", ...(options.args ?? [])];
  const child = spawn(process.execPath, argv, {
    cwd: world.home,
    env: worldEnv(world),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const deadline = Date.now() + (options.maxWaitMs ?? 30_000);
  while (!options.ready() && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGKILL");
  await exited;
}
