/**
 * A receiver holding the secret verifies what Dossier signs with an independent implementation
 * (the `standardwebhooks` package), and refuses it when any signed part — the message id, the
 * timestamp, the body — or the secret differs.
 */

import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { secretKey } from "./secret.ts";
import { type SignedMessage, signature, signedHeaders } from "./sign.ts";
import { TEST_SECRET } from "./test-receiver.ts";

const secretOf = (bytes: Buffer) => `whsec_${bytes.toString("base64")}`;
const now = () => Math.floor(Date.now() / 1000);

const bodies = [
  JSON.stringify({ type: "run.completed", data: { runId: "r1" } }),
  JSON.stringify({ type: "run.failed", data: { runId: "r2", error: 'quotes " and dots . and ünïcödé ✓' } }),
  JSON.stringify({ type: "run.completed", data: { runId: "r3", lines: "a\nb\r\nc" } }),
];

describe("a signed webhook", () => {
  it("is verified by the independent implementation, for any body and any valid secret", () => {
    for (const secret of [TEST_SECRET, secretOf(randomBytes(24)), secretOf(randomBytes(64))]) {
      const key = secretKey(secret)!;
      for (const body of bodies) {
        const message = { id: `msg_${randomBytes(6).toString("hex")}`, timestamp: now(), body };
        const headers = signedHeaders(key, message);
        expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      }
    }
  });

  it("carries exactly the Standard Webhooks headers and the content type", () => {
    const key = secretKey(TEST_SECRET)!;
    const message = { id: "msg_1", timestamp: 1_767_225_600, body: bodies[0]! };
    expect(signedHeaders(key, message)).toEqual({
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "webhook-timestamp": "1767225600",
      "webhook-signature": signature(key, message),
    });
    expect(signature(key, message)).toBe(
      new Webhook(TEST_SECRET).sign("msg_1", new Date(1_767_225_600_000), bodies[0]!),
    );
  });

  it("is refused when its id, its timestamp or its body changed, or under another secret", () => {
    const key = secretKey(TEST_SECRET)!;
    const message: SignedMessage = { id: "msg_signed", timestamp: now(), body: bodies[1]! };
    const headers = signedHeaders(key, message);
    const verifier = new Webhook(TEST_SECRET);
    expect(verifier.verify(message.body, headers)).toEqual(JSON.parse(message.body));
    const refused = (body: string, changed: Record<string, string>) => () =>
      verifier.verify(body, { ...headers, ...changed });
    expect(refused(message.body, { "webhook-id": "msg_signee" })).toThrow(/signature/i);
    expect(refused(message.body, { "webhook-timestamp": String(message.timestamp - 1) })).toThrow(
      /signature/i,
    );
    expect(refused(message.body.replace("r2", "r3"), {})).toThrow(/signature/i);
    expect(refused(`${message.body} `, {})).toThrow(/signature/i);
    const other = secretOf(Buffer.from(secretKey(TEST_SECRET)!.map((b, i) => (i === 0 ? b ^ 1 : b))));
    expect(() => new Webhook(other).verify(message.body, headers)).toThrow(/signature/i);
    // Signed with the wrong key, the same message is refused by a receiver with the right one.
    const forged = signedHeaders(secretKey(other)!, message);
    expect(() => verifier.verify(message.body, forged)).toThrow(/signature/i);
  });
});
