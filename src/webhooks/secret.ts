/**
 * The signing secret of webhooks, in the Standard Webhooks form: `whsec_` followed by the base64
 * of 24 to 64 random bytes. The HMAC key is the decoded bytes.
 */

import { DossierError } from "../core/errors.ts";

/** The prefix of a symmetric Standard Webhooks secret. */
export const SECRET_PREFIX = "whsec_";
/** Fewest key bytes the specification allows. */
export const MIN_SECRET_BYTES = 24;
/** Most key bytes the specification allows. */
export const MAX_SECRET_BYTES = 64;

/** What a secret looks like, for messages (never the secret itself). */
export const SECRET_FORM = `whsec_ followed by the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes (e.g. whsec_$(openssl rand -base64 32))`;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key bytes of `secret`, or null when it is not a well-formed secret. */
export function secretKey(secret: string): Buffer | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return null;
  const key = Buffer.from(encoded, "base64");
  return key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES ? key : null;
}

/** True for a well-formed secret. */
export function isWebhookSecret(secret: string): boolean {
  return secretKey(secret) !== null;
}

/**
 * The key of `secret`; CONFIG_INVALID naming `setting` (never the value) when it is missing or
 * malformed.
 */
export function signingKey(secret: string | undefined, setting: string): Buffer {
  if (secret === undefined) {
    throw new DossierError(
      "CONFIG_INVALID",
      `webhooks need a signing secret: set ${setting} to ${SECRET_FORM}`,
      { details: { setting } },
    );
  }
  const key = secretKey(secret.trim());
  if (!key) {
    throw new DossierError("CONFIG_INVALID", `invalid setting ${setting}: expected ${SECRET_FORM}`, {
      details: { setting },
    });
  }
  return key;
}
