/**
 * The event a webhook carries: a small JSON object `{type, timestamp, data}` (the Standard
 * Webhooks payload structure) built from the run's record when its status changes.
 */

import { z } from "zod";
import type { RunRecord } from "../core/run.ts";

/** Statuses a webhook is sent for, and the event type of each. */
export const WEBHOOK_EVENTS = {
  completed: "run.completed",
  failed: "run.failed",
  cancelled: "run.cancelled",
  "awaiting-review": "run.awaiting_review",
} as const;

/** A run status that is announced. */
export type AnnouncedStatus = keyof typeof WEBHOOK_EVENTS;
/** An event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[AnnouncedStatus];

/** The event type of `status`, or null when the status is not announced. */
export function eventTypeOf(status: string): WebhookEventType | null {
  return Object.hasOwn(WEBHOOK_EVENTS, status) ? WEBHOOK_EVENTS[status as AnnouncedStatus] : null;
}

/** The body of every webhook. */
export const webhookEventSchema = z.object({
  type: z.enum(Object.values(WEBHOOK_EVENTS) as [WebhookEventType, ...WebhookEventType[]]),
  /** When the status was recorded (ISO). */
  timestamp: z.string(),
  data: z.object({
    runId: z.string(),
    status: z.string(),
    question: z.string(),
    strategy: z.string(),
    /** `completed`, `budget:<limit>`, `cancelled: <reason>`, `error: <CODE>`; null while awaiting review. */
    stopReason: z.string().nullable(),
    /** What failed, for a failed run. */
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    /** The report: the API's paths to read it, and the files it was written to, once completed. */
    report: z
      .object({
        /** Server paths (relative to the server's address) by format. */
        links: z.record(z.string(), z.string()),
        /** Files on the disk of the process that ran the run. */
        paths: z.array(z.string()),
      })
      .nullable(),
    /** The run's API resource (relative to the server's address). */
    links: z.object({ run: z.string(), events: z.string(), webhooks: z.string() }),
  }),
});
/** The body of a webhook. */
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** The event announcing `record`'s status, or null when its status is not announced. */
export function webhookEvent(record: RunRecord, occurredAt: string): WebhookEvent | null {
  const type = eventTypeOf(record.status);
  if (!type) return null;
  const base = `/v1/runs/${encodeURIComponent(record.id)}`;
  const formats = stringList(record.options.formats);
  const paths = stringList(record.options.reportPaths);
  return {
    type,
    timestamp: occurredAt,
    data: {
      runId: record.id,
      status: record.status,
      question: record.query,
      strategy: record.strategy,
      stopReason: record.stopReason,
      error: record.error ? { code: record.error.code, message: record.error.message } : null,
      report:
        record.status === "completed" && formats.length > 0
          ? {
              links: Object.fromEntries(formats.map((f) => [f, `${base}/report/${encodeURIComponent(f)}`])),
              paths,
            }
          : null,
      links: { run: base, events: `${base}/events`, webhooks: `${base}/webhooks` },
    },
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
