/**
 * A refresh run's diff: the Markdown redline and the JSON diff its `report-diff` event names
 * (written beside its report), as the web UI's versions view reads them (mounted under `/v1`).
 */

import { existsSync, readFileSync } from "node:fs";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DossierError } from "../core/errors.ts";
import type { EventOf } from "../core/events.ts";
import type { ApiServices } from "./api-services.ts";
import { runIdParam } from "./components.ts";
import { createRouter, errorResponses } from "./route-kit.ts";

/** The diff formats and their content types. */
const DIFF_CONTENT_TYPES = {
  md: "text/markdown; charset=utf-8",
  json: "application/json; charset=utf-8",
} as const;

const format = z
  .enum(["md", "json"], { error: (issue) => `expected md or json, got "${String(issue.input)}"` })
  .openapi({ description: "diff format: the Markdown redline or the JSON diff" });

const getDiff = createRoute({
  method: "get",
  path: "/runs/{id}/diff/{format}",
  operationId: "getRunDiff",
  tags: ["runs"],
  summary: "Download a refresh's diff",
  description:
    "What a refresh run changed in the report it refreshed: the Markdown redline (removed claims struck through, added ones in bold; untrusted text escaped) or the JSON diff (sections rewritten, claims and citations added and removed, each cited page's state). 404 for a run that is no finished refresh.",
  request: { params: z.object({ id: runIdParam, format }) },
  responses: {
    200: {
      description: "the diff",
      content: {
        "text/markdown": { schema: z.string() },
        "application/json": {
          schema: z.object({}).loose().openapi({ description: "the diff (format dossier-report-diff)" }),
        },
      },
    },
    ...errorResponses(400, 404),
  },
});

/** The diff file of `runId` in `format`, from its last report-diff event; NOT_FOUND when it has none. */
export async function readDiffFile(
  runs: ApiServices["dossier"]["runs"],
  runId: string,
  format: keyof typeof DIFF_CONTENT_TYPES,
): Promise<string> {
  const diff = (await runs.events(runId, { types: ["report-diff"] })).at(-1) as
    | EventOf<"report-diff">
    | undefined;
  const path = diff?.paths.find((p) => p.endsWith(`.diff.${format}`));
  if (!path || !existsSync(path)) {
    throw new DossierError(
      "NOT_FOUND",
      diff ? `run ${runId} has no ${format} diff` : `run ${runId} is not a finished refresh: it has no diff`,
    );
  }
  return readFileSync(path, "utf8");
}

/** The diff route of a run (mounted under `/v1`). */
export function diffRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();
  app.openapi(getDiff, async (c) => {
    const { dossier, runs } = services();
    const { id, format: f } = c.req.valid("param");
    const run = await runs.view(id);
    const text = await readDiffFile(dossier.runs, run.id, f);
    c.header("Content-Type", DIFF_CONTENT_TYPES[f]);
    c.header("Content-Disposition", `inline; filename="${run.id}.diff.${f}"`);
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(text, 200);
  });
  return app;
}
