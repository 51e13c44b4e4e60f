/**
 * `dossier <args>` run in-process against a research world: its home, its fake model server and
 * its SearXNG-format search server, with private addresses allowed (the world is on loopback).
 */

import { type CliOutcome, runCliInProcess } from "../cli-io.ts";
import type { ResearchWorld } from "./world.ts";

/** The environment a `dossier` command needs to use `world` (and nothing of this process's). */
export function worldCliEnv(world: ResearchWorld): Record<string, string> {
  return {
    HOME: world.home,
    DOSSIER_HOME: world.home,
    DOSSIER_MODEL: "openai-compatible:fake-model",
    DOSSIER_BASE_URL: world.model.url,
    DOSSIER_API_KEY: "sk-test",
    DOSSIER_SEARCH: "searxng",
    SEARXNG_URL: world.search.baseUrl("searxng"),
    DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
  };
}

/** Runs `dossier <args>` in-process in `world`'s home with {@link worldCliEnv}. */
export function dossierInWorld(args: string[], world: ResearchWorld): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd: world.home, env: worldCliEnv(world) });
}
