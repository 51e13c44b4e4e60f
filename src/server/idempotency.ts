/**
 * `Idempotency-Key` on `POST /v1/runs`: the key names the run. Its run id is derived from the
 * key (`key-` and 24 hex digits of its SHA-256), so the store's unique run id holds the key, in
 * SQLite and PostgreSQL alike, and of two requests with one key, at once or apart, one creates
 * the run and the other is answered with it.
 */

import { createHash } from "node:crypto";
import { DossierError } from "../core/errors.ts";

/** What an `Idempotency-Key` may be: 1 to 200 visible ASCII characters. */
const KEY = /^[\x21-\x7e]{1,200}$/;

/** The run id of an idempotency key; INPUT_INVALID for a key that is not 1–200 visible ASCII characters. */
export function idempotentRunId(key: string): string {
  if (!KEY.test(key))
    throw new DossierError(
      "INPUT_INVALID",
      "Idempotency-Key must be 1 to 200 visible ASCII characters (no spaces)",
    );
  return `key-${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
}
