/**
 * A webhook delivery as users see it (`dossier runs show`, `GET /v1/runs/{id}/webhooks`): what
 * was sent where, where it stands, and every attempt — without the body.
 */

import { z } from "zod";
import type { DeliveryRecord } from "../store/types.ts";

/** One delivery as shown. */
export const deliveryViewSchema = z.object({
  /** The `webhook-id` (the same at every attempt). */
  id: z.string(),
  type: z.string(),
  url: z.string(),
  state: z.enum(["pending", "delivered", "failed"]),
  attempts: z.array(
    z.object({
      at: z.string(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
    }),
  ),
  maxAttempts: z.number().int(),
  /** When the next attempt is due; null once delivered or given up. */
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
});
/** One delivery as shown. */
export type DeliveryView = z.infer<typeof deliveryViewSchema>;

/** The view of a stored delivery. */
export function deliveryView(record: DeliveryRecord): DeliveryView {
  return {
    id: record.id,
    type: record.eventType,
    url: record.url,
    state: record.state,
    attempts: record.attempts,
    maxAttempts: record.maxAttempts,
    nextAttemptAt: record.nextAttemptAt,
    createdAt: record.createdAt,
    deliveredAt: record.deliveredAt,
  };
}

/** Lines of text for `runs show`: one per delivery, then one per attempt. */
export function deliveryLines(views: readonly DeliveryView[]): string[] {
  return views.flatMap((d) => {
    const stand =
      d.state === "delivered"
        ? `delivered ${d.deliveredAt}`
        : d.state === "failed"
          ? "given up"
          : `pending, next attempt ${d.nextAttemptAt}`;
    return [
      `webhook   ${d.type} → ${d.url}: ${stand} (${d.attempts.length} of ${d.maxAttempts} attempts; ${d.id})`,
      ...d.attempts.map((a, n) => {
        const what = a.status === null ? "no answer" : `HTTP ${a.status}`;
        const why = a.error ? a.error.replace(/^HTTP \d+(: )?/, "") : "";
        return `  attempt ${n + 1} ${a.at}: ${what}${why ? ` — ${why}` : ""} (${a.durationMs} ms)`;
      }),
    ];
  });
}
