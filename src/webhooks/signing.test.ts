/**
 * The signature is the Standard Webhooks one: an independent implementation (the
 * `standardwebhooks` package) computes the same header and verifies it; secrets are checked for
 * their form and never echoed.
 */

import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import { isWebhookSecret, secretKey, signingKey } from "./secret.ts";
import { signature, signedHeaders } from "./sign.ts";
import { TEST_SECRET } from "./test-receiver.ts";

const body = JSON.stringify({
  type: "run.completed",
  timestamp: "2026-01-01T00:00:00.000Z",
  data: { runId: "r1" },
});

describe("signing", () => {
  it("computes the header the independent implementation computes", () => {
    const key = secretKey(TEST_SECRET)!;
    const timestamp = 1_767_225_600;
    const ours = signature(key, { id: "msg_abc", timestamp, body });
    const theirs = new Webhook(TEST_SECRET).sign("msg_abc", new Date(timestamp * 1000), body);
    expect(ours).toBe(theirs);
    expect(ours).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("produces headers the independent implementation verifies, and a changed body it refuses", () => {
    const key = secretKey(TEST_SECRET)!;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signedHeaders(key, { id: "msg_abc", timestamp, body });
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": "msg_abc",
      "webhook-timestamp": String(timestamp),
    });
    const verifier = new Webhook(TEST_SECRET);
    expect(verifier.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => verifier.verify(body.replace("r1", "r2"), headers)).toThrow(/signature/i);
  });
});

describe("secrets", () => {
  it("accepts whsec_ and the base64 of 24 to 64 bytes only", () => {
    const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString("base64")}`;
    expect(isWebhookSecret(of(24))).toBe(true);
    expect(isWebhookSecret(of(64))).toBe(true);
    expect(isWebhookSecret(of(23))).toBe(false);
    expect(isWebhookSecret(of(65))).toBe(false);
    expect(isWebhookSecret(of(32).replace("whsec_", ""))).toBe(false);
    expect(isWebhookSecret("whsec_not base64 at all!!")).toBe(false);
    expect(secretKey(TEST_SECRET)?.toString()).toBe("dossier-webhook-test-secret-0123");
  });

  it("says how to set a missing or malformed secret without showing it", () => {
    const missing = (() => {
      try {
        signingKey(undefined, "DOSSIER_WEBHOOK_SECRET");
      } catch (error) {
        return error as DossierError;
      }
    })();
    expect(missing).toBeInstanceOf(DossierError);
    expect(missing?.code).toBe("CONFIG_INVALID");
    expect(missing?.message).toMatch(/set DOSSIER_WEBHOOK_SECRET to whsec_/);
    const bad = "whsec_dG9vLXNob3J0";
    expect(() => signingKey(bad, "DOSSIER_WEBHOOK_SECRET")).toThrow(/expected whsec_ followed by the base64/);
    try {
      signingKey(bad, "DOSSIER_WEBHOOK_SECRET");
    } catch (error) {
      expect((error as Error).message).not.toContain("dG9vLXNob3J0");
    }
  });
});
