/**
 * One attempt against loopback servers: refused by the SSRF guard unless private networks are
 * allowed (also a name that resolves to loopback, at connect time), a redirect not followed, a
 * silent receiver cut at the time limit, and a huge answer not read past the limit.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { sendWebhook } from "./send.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server; returns its port and what it received. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    handler!(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, hits };
}

const base = { headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 2_000 };
const allowed = { allowPrivateNetwork: true };

describe("sendWebhook", () => {
  it("refuses a loopback receiver unless private networks are allowed, before connecting", async () => {
    const { port, hits } = await serve((_q, r) => r.writeHead(204).end());
    const refused = await sendWebhook({
      ...base,
      url: `http://127.0.0.1:${port}/h`,
      guard: { allowPrivateNetwork: false },
    });
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.error).toMatch(/refused to connect to 127\.0\.0\.1.*loopback/);
    expect(hits).toEqual([]);
    const sent = await sendWebhook({ ...base, url: `http://127.0.0.1:${port}/h`, guard: allowed });
    expect(sent).toMatchObject({ ok: true, status: 204, error: null });
    expect(hits).toEqual(["POST /h"]);
  });

  it("refuses a host name that resolves to loopback, at connect time", async () => {
    const { port, hits } = await serve((_q, r) => r.writeHead(204).end());
    const result = await sendWebhook({
      ...base,
      url: `http://hooks.example:${port}/h`,
      guard: { allowPrivateNetwork: false, resolve: async () => [{ address: "127.0.0.1", family: 4 }] },
    });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/refused to connect to 127\.0\.0\.1 \(resolved from hooks\.example\)/);
    expect(hits).toEqual([]);
  });

  it("does not follow a redirect", async () => {
    const target = await serve((_q, r) => r.writeHead(204).end());
    const { port } = await serve((_q, r) =>
      r.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end(),
    );
    const result = await sendWebhook({ ...base, url: `http://127.0.0.1:${port}/h`, guard: allowed });
    expect(result).toMatchObject({ ok: false, status: 307 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(target.hits).toEqual([]);
  });

  it("gives up on a receiver that does not answer within the time limit", async () => {
    const { port } = await serve(() => {});
    const result = await sendWebhook({
      ...base,
      timeoutMs: 300,
      url: `http://127.0.0.1:${port}/h`,
      guard: allowed,
    });
    expect(result).toMatchObject({ ok: false, status: null, error: "no answer within 300 ms" });
  });

  it("reads no more of an answer than its limit", async () => {
    let written = 0;
    const { port } = await serve((_q, r) => {
      r.writeHead(500, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      const more = () => {
        // An endless answer: stops only when the sender hangs up.
        while (written < 50 * 1024 * 1024 && r.write(chunk)) written += chunk.length;
        if (written < 50 * 1024 * 1024) r.once("drain", more);
      };
      r.on("close", () => r.removeAllListeners("drain"));
      more();
    });
    const result = await sendWebhook({
      ...base,
      url: `http://127.0.0.1:${port}/h`,
      guard: allowed,
      maxResponseBytes: 1024,
    });
    expect(result).toMatchObject({ ok: false, status: 500 });
    expect(result.error).toMatch(/^HTTP 500: x{100}/);
    expect(result.error!.length).toBeLessThanOrEqual(220);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });
});
