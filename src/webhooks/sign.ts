/**
 * Signing a webhook as the Standard Webhooks specification says: HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}` with the secret's key, sent as `v1,<base64>`.
 */

import { createHmac } from "node:crypto";

/** What one attempt signs. */
export interface SignedMessage {
  /** The `webhook-id` (the delivery's, the same at every attempt). */
  id: string;
  /** The attempt's time, whole seconds since the epoch. */
  timestamp: number;
  /** The exact body sent. */
  body: string;
}

/** The `webhook-signature` value of `message` under `key`: `v1,<base64 HMAC-SHA256>`. */
export function signature(key: Buffer, message: SignedMessage): string {
  const mac = createHmac("sha256", key).update(`${message.id}.${message.timestamp}.${message.body}`);
  return `v1,${mac.digest("base64")}`;
}

/** The headers of one attempt: the three Standard Webhooks headers and the content type. */
export function signedHeaders(key: Buffer, message: SignedMessage): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestamp),
    "webhook-signature": signature(key, message),
  };
}
