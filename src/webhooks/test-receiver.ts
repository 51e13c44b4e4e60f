/**
 * A webhook receiver for tests: an HTTP server on loopback that verifies every request with
 * the `standardwebhooks` package (an independent Standard Webhooks implementation, not
 * Dossier's signer) and answers from a script of statuses (then 204).
 */

import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** Null when the independent implementation verified the signature, else its error. */
  verifyError: string | null;
  /** What it answered. */
  status: number;
}

/** A listening receiver. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `n` requests have been received. */
  count(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver for `secret`; the i-th request is answered `statuses[i]` (default 204). */
export async function startReceiver(secret: string, statuses: readonly number[] = []): Promise<Receiver> {
  const verifier = new Webhook(secret);
  const received: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let verifyError: string | null = null;
      try {
        verifier.verify(body, request.headers as Record<string, string>);
      } catch (error) {
        verifyError = (error as Error).message;
      }
      const status = statuses[received.length] ?? 204;
      received.push({ headers: request.headers, body, verifyError, status });
      response.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "" : "not now");
      for (const waiter of waiters.filter((w) => received.length >= w.n)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/dossier`,
    received,
    count: (n) =>
      received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A well-formed secret for tests (32 bytes). */
export const TEST_SECRET = `whsec_${Buffer.from("dossier-webhook-test-secret-0123").toString("base64")}`;
