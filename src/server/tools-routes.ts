/**
 * The tool endpoints: ask (a short answer), search and fetch, through the Dossier's gateway.
 */

import { Hono } from "hono";
import type { Dossier } from "../runtime/dossier.ts";
import { readBody } from "./body.ts";
import type { RunManager } from "./run-manager.ts";
import { askBodySchema, fetchBodySchema, searchBodySchema } from "./schemas.ts";
import { fetchWith, searchWith, type ToolCallEnv } from "./tool-calls.ts";

/** The `/ask`, `/search` and `/fetch` routes (mounted under `/v1`). */
export function toolsRoutes(options: { dossier: Dossier; runs: RunManager } & ToolCallEnv): Hono {
  const { dossier, runs } = options;
  const app = new Hono();

  app.post("/ask", async (c) => {
    const body = await readBody(c, askBodySchema);
    return c.json(await runs.ask(body, c.req.raw.signal));
  });

  app.post("/search", async (c) => {
    const body = await readBody(c, searchBodySchema);
    return c.json(await searchWith(dossier, body, options.env ? { env: options.env } : {}));
  });

  app.post("/fetch", async (c) => {
    const body = await readBody(c, fetchBodySchema);
    return c.json(await fetchWith(dossier, body));
  });

  return app;
}
