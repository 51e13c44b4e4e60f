/**
 * What a run puts out: its events as Server-Sent Events, its report in each format and its
 * webhook deliveries (mounted under `/v1`).
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { reportFormatList } from "../core/report-formats.ts";
import { REPORT_CSP } from "../render/html.ts";
import { deliveryView, deliveryViewSchema } from "../webhooks/delivery-view.ts";
import type { ApiServices } from "./api-services.ts";
import { Event, runIdParam } from "./components.ts";
import { REPORT_CONTENT_TYPES, readReportFile } from "./reports.ts";
import { createRouter, errorResponses } from "./route-kit.ts";
import { isQueued } from "./run-manager.ts";
import { downloadFormatSchema } from "./schemas.ts";
import { resumeSeq, streamRunEvents } from "./sse.ts";

const seq = (description: string) =>
  z.string().optional().openapi({ type: "integer", minimum: 0, description });

const streamEvents = createRoute({
  method: "get",
  path: "/runs/{id}/events",
  operationId: "streamRunEvents",
  tags: ["runs"],
  summary: "Follow a run's events",
  description:
    "The run's events as Server-Sent Events: `id` is the event's seq, `event` its type and `data` the event as JSON. The stream ends after `run-end`. A client that reconnects with `Last-Event-ID` (or `?after=`) gets only the events after that one.",
  request: {
    params: z.object({ id: runIdParam }),
    query: z.object({ after: seq("resume after this seq (when Last-Event-ID cannot be sent)") }),
    headers: z.object({ "last-event-id": seq("resume after this seq") }),
  },
  responses: {
    200: { description: "the event stream", content: { "text/event-stream": { schema: Event } } },
    ...errorResponses(404),
  },
});

const format = z
  .enum(downloadFormatSchema.options, {
    error: (issue) => `expected ${reportFormatList()}, got "${String(issue.input)}"`,
  })
  .openapi({ description: "report format" });

const getReport = createRoute({
  method: "get",
  path: "/runs/{id}/report/{format}",
  operationId: "getRunReport",
  tags: ["runs"],
  summary: "Download a run's report",
  description:
    "A format the run did not write is rendered from its JSON bundle when it has one (a PDF only where the server can print one: chromium installed, else 422 DEPENDENCY_MISSING). The HTML report is sanitized and carries its own Content-Security-Policy; the DOCX report is sent as an attachment.",
  request: { params: z.object({ id: runIdParam, format }) },
  responses: {
    200: {
      description: "the report",
      content: {
        "text/markdown": { schema: z.string() },
        "text/html": { schema: z.string() },
        "application/json": {
          schema: z.object({}).loose().openapi({ description: "the report bundle (format dossier-report)" }),
        },
        "application/pdf": { schema: z.string().openapi({ format: "binary" }) },
        [REPORT_CONTENT_TYPES.docx]: { schema: z.string().openapi({ format: "binary" }) },
      },
    },
    ...errorResponses(400, 404, 422),
  },
});

const WebhookDeliveries = z
  .object({ runId: z.string(), webhooks: z.array(deliveryViewSchema) })
  .openapi("WebhookDeliveries");

const listWebhooks = createRoute({
  method: "get",
  path: "/runs/{id}/webhooks",
  operationId: "listRunWebhooks",
  tags: ["runs"],
  summary: "List a run's webhook deliveries",
  description:
    "Each webhook event of the run (run.completed, run.failed, run.cancelled, run.awaiting_review) and URL: its webhook-id (the same at every attempt), its state (pending, delivered, failed: given up), when the next attempt is due, and every attempt with the receiver's status or why none came.",
  request: { params: z.object({ id: runIdParam }) },
  responses: {
    200: {
      description: "the run's deliveries, oldest first",
      content: { "application/json": { schema: WebhookDeliveries } },
    },
    ...errorResponses(404),
  },
});

/** The event stream, report and webhook routes of a run (mounted under `/v1`). */
export function runOutputRoutes(services: () => ApiServices): OpenAPIHono {
  const app = createRouter();

  app.openapi(streamEvents, async (c) => {
    const { dossier, runs, keepAliveMs } = services();
    const runId = (await runs.view(c.req.valid("param").id)).id;
    const handle = () => runs.handle(runId);
    return streamRunEvents(c, {
      log: dossier.store.events,
      runId,
      afterSeq: resumeSeq(c),
      // A run on a worker appends elsewhere: its log is polled.
      isLocal: () => {
        const h = handle();
        return h !== undefined && !isQueued(h);
      },
      // A queued run is live too: a worker will start it and append its events.
      isLive: async () => {
        if (handle() !== undefined) return true;
        const status = (await dossier.store.runs.get(runId))?.status;
        return status === "running" || status === "queued";
      },
      ...(handle() ? { settled: handle()!.done } : {}),
      ...(keepAliveMs ? { keepAliveMs } : {}),
    });
  });

  app.openapi(getReport, async (c) => {
    const { dossier, runs } = services();
    const { id, format } = c.req.valid("param");
    const run = await runs.view(id);
    const report = await readReportFile(dossier.runs, run.id, format);
    c.header("Content-Type", REPORT_CONTENT_TYPES[format]);
    const disposition = format === "docx" ? "attachment" : "inline";
    c.header("Content-Disposition", `${disposition}; filename="${run.id}.${format}"`);
    c.header("X-Content-Type-Options", "nosniff");
    if (format === "html") {
      // The report is sanitized and carries its own policy; the header says the same to the browser.
      c.header("Content-Security-Policy", `${REPORT_CSP}; frame-ancestors 'none'`);
    }
    if (format === "pdf") c.header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    return c.body(typeof report === "string" ? report : new Uint8Array(report), 200);
  });

  app.openapi(listWebhooks, async (c) => {
    const { dossier, runs } = services();
    const run = await runs.view(c.req.valid("param").id);
    const webhooks = (await dossier.store.deliveries.list(run.id)).map(deliveryView);
    return c.json({ runId: run.id, webhooks }, 200);
  });

  return app;
}
