/**
 * What a webhook signing secret may look like: `whsec_` and the padded standard base64 of 24 to
 * 64 bytes, the key being exactly those bytes. Anything else is refused — never decoded into some
 * other key — and a refusal names the setting, never the value.
 */

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import {
  isWebhookSecret,
  MAX_SECRET_BYTES,
  MIN_SECRET_BYTES,
  SECRET_FORM,
  SECRET_PREFIX,
  secretKey,
  signingKey,
} from "./secret.ts";

const of = (bytes: Buffer) => `whsec_${bytes.toString("base64")}`;

describe("a webhook secret", () => {
  it("is whsec_ and the base64 of 24 to 64 bytes, its key those bytes", () => {
    expect([SECRET_PREFIX, MIN_SECRET_BYTES, MAX_SECRET_BYTES]).toEqual(["whsec_", 24, 64]);
    for (let n = 24; n <= 64; n++) {
      const bytes = randomBytes(n);
      expect(secretKey(of(bytes))).toEqual(bytes);
      expect(isWebhookSecret(of(bytes))).toBe(true);
    }
    for (const n of [0, 1, 16, 23, 65, 96]) {
      expect(secretKey(of(randomBytes(n)))).toBeNull();
      expect(isWebhookSecret(of(randomBytes(n)))).toBe(false);
    }
  });

  it("is refused without its prefix, or with another one", () => {
    const encoded = randomBytes(32).toString("base64");
    for (const secret of [
      encoded,
      `WHSEC_${encoded}`,
      `whsec${encoded}`,
      ` whsec_${encoded}`,
      `x_whsec_${encoded}`,
    ])
      expect(secretKey(secret)).toBeNull();
  });

  it("is refused when its base64 is not padded standard base64 from end to end", () => {
    // 25 and 26 bytes end in `==` and `=`: accepted padded, refused bare.
    for (const n of [25, 26]) {
      const encoded = randomBytes(n).toString("base64");
      expect(encoded).toMatch(/=$/);
      expect(secretKey(`whsec_${encoded}`)).not.toBeNull();
      expect(secretKey(`whsec_${encoded.replace(/=+$/, "")}`)).toBeNull();
      expect(secretKey(`whsec_${encoded}=`)).toBeNull();
    }
    const valid = randomBytes(33).toString("base64");
    expect(valid).toHaveLength(44);
    expect(secretKey(`whsec_${valid}`)).not.toBeNull();
    const broken = [
      `${valid}!`,
      `!${valid}`,
      `${valid}A`,
      `A${valid}`,
      `${valid.slice(0, 20)} ${valid.slice(20)}`,
      `${valid}\n`,
      `${valid.slice(0, 20)}=${valid.slice(21)}`,
      // The URL-safe alphabet: Node would decode it silently into some key.
      valid.replace(/[+/]/g, "-").replace(/^./, "_"),
      `${valid.slice(0, 40)}AA==`.replace(/A/, "-"),
    ];
    for (const encoded of broken) expect(secretKey(`whsec_${encoded}`), encoded).toBeNull();
  });

  it("is read from a setting with its surrounding blanks trimmed (a file's last newline)", () => {
    const bytes = randomBytes(32);
    expect(signingKey(`  ${of(bytes)}\n`, "DOSSIER_WEBHOOK_SECRET")).toEqual(bytes);
    expect(signingKey(of(bytes), "DOSSIER_WEBHOOK_SECRET")).toEqual(bytes);
  });

  it("is refused from a setting as CONFIG_INVALID naming the setting and the form, never the value", () => {
    const refusal = (secret: string | undefined) => {
      try {
        signingKey(secret, "webhooks.secret");
      } catch (error) {
        return error as DossierError;
      }
      throw new Error("accepted");
    };
    const missing = refusal(undefined);
    expect(missing).toBeInstanceOf(DossierError);
    expect(missing.code).toBe("CONFIG_INVALID");
    expect(missing.message).toBe(`webhooks need a signing secret: set webhooks.secret to ${SECRET_FORM}`);
    expect(missing.details).toEqual({ setting: "webhooks.secret" });
    const value = `whsec_${randomBytes(12).toString("base64")}`;
    for (const secret of [value, "", "   "]) {
      const bad = refusal(secret);
      expect(bad.code).toBe("CONFIG_INVALID");
      expect(bad.message).toBe(`invalid setting webhooks.secret: expected ${SECRET_FORM}`);
      expect(bad.details).toEqual({ setting: "webhooks.secret" });
    }
    expect(JSON.stringify(refusal(value))).not.toContain(value.slice(6));
    expect(SECRET_FORM).toBe(
      "whsec_ followed by the base64 of 24 to 64 random bytes (e.g. whsec_$(openssl rand -base64 32))",
    );
  });
});
