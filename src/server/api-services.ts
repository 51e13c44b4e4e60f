/**
 * What the API's handlers call, resolved when a request arrives: the routes are built once
 * and their handlers ask for the services they need.
 */

import type { Dossier } from "../runtime/dossier.ts";
import type { RunManager } from "./run-manager.ts";

/** The services of the API's handlers. */
export interface ApiServices {
  dossier: Dossier;
  runs: RunManager;
  /** Environment variables (search endpoint overrides such as TAVILY_BASE_URL). */
  env: Record<string, string | undefined>;
  /** Keep-alive interval of event streams (ms). */
  keepAliveMs?: number;
}
