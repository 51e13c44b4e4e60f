/**
 * The run endpoints: create, list, get, stream events (SSE), cancel, resume, report downloads.
 */

import { Hono } from "hono";
import { runStatusSchema } from "../core/run.ts";
import { REPORT_CSP } from "../render/html.ts";
import type { Dossier } from "../runtime/dossier.ts";
import { readBody } from "./body.ts";
import { ApiError } from "./errors.ts";
import { REPORT_CONTENT_TYPES, readReport } from "./reports.ts";
import type { RunManager } from "./run-manager.ts";
import { createRunBodySchema, reportFormatSchema } from "./schemas.ts";
import { resumeSeq, streamRunEvents } from "./sse.ts";

/** Options of {@link runsRoutes}. */
export interface RunsRoutesOptions {
  dossier: Dossier;
  runs: RunManager;
  /** Keep-alive interval of event streams (ms). */
  keepAliveMs?: number;
}

/** The `/runs` routes (mounted under `/v1`). */
export function runsRoutes(options: RunsRoutesOptions): Hono {
  const { dossier, runs } = options;
  const app = new Hono();

  app.post("/runs", async (c) => {
    const body = await readBody(c, createRunBodySchema);
    const run = await runs.create(body);
    c.header("Location", `/v1/runs/${run.id}`);
    return c.json({ run }, 201);
  });

  app.get("/runs", (c) => {
    const limitRaw = c.req.query("limit");
    const statusRaw = c.req.query("status");
    const limit = limitRaw === undefined ? 50 : Number(limitRaw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new ApiError(
        400,
        "INPUT_INVALID",
        `limit: expected a whole number from 1 to 1000, got "${limitRaw}"`,
      );
    }
    const status = statusRaw === undefined ? undefined : runStatusSchema.safeParse(statusRaw);
    if (status && !status.success) {
      throw new ApiError(
        400,
        "INPUT_INVALID",
        `status: expected one of ${runStatusSchema.options.join(", ")}, got "${statusRaw}"`,
      );
    }
    return c.json({ runs: runs.list({ limit, ...(status?.data ? { status: status.data } : {}) }) });
  });

  app.get("/runs/:id", (c) => c.json({ run: runs.view(c.req.param("id")) }));

  app.get("/runs/:id/events", (c) => {
    const runId = runs.view(c.req.param("id")).id;
    const handle = () => runs.handle(runId);
    return streamRunEvents(c, {
      log: dossier.store.events,
      runId,
      afterSeq: resumeSeq(c),
      isLocal: () => handle() !== undefined,
      isLive: () => handle() !== undefined || dossier.store.runs.get(runId)?.status === "running",
      ...(handle() ? { settled: handle()!.done } : {}),
      ...(options.keepAliveMs ? { keepAliveMs: options.keepAliveMs } : {}),
    });
  });

  app.post("/runs/:id/cancel", (c) => c.json(runs.cancel(c.req.param("id")), 202));

  app.post("/runs/:id/resume", async (c) => {
    const handle = await runs.resume(c.req.param("id"));
    return c.json({ run: runs.view(handle.runId) }, 202);
  });

  app.get("/runs/:id/report/:format", (c) => {
    const format = reportFormatSchema.safeParse(c.req.param("format"));
    if (!format.success) {
      throw new ApiError(
        400,
        "INPUT_INVALID",
        `format: expected md, html or json, got "${c.req.param("format")}"`,
      );
    }
    const run = runs.view(c.req.param("id"));
    const text = readReport(dossier.runs, run.id, format.data);
    c.header("Content-Type", REPORT_CONTENT_TYPES[format.data]);
    c.header("Content-Disposition", `inline; filename="${run.id}.${format.data}"`);
    c.header("X-Content-Type-Options", "nosniff");
    if (format.data === "html") {
      // The report is sanitized and carries its own policy; the header says the same to the browser.
      c.header("Content-Security-Policy", `${REPORT_CSP}; frame-ancestors 'none'`);
    }
    return c.body(text, 200);
  });

  return app;
}
