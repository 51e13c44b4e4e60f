import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeWeb, HUGE_BODY_BYTES, startFakeWeb } from "../../../test/fake-web/index.ts";
import type { DossierError } from "../../core/errors.ts";
import { DEFAULT_MAX_BYTES, type HttpFetchOptions, httpFetch } from "./http-fetch.ts";
import type { Resolver } from "./ssrf-guard.ts";

let web: FakeWeb;
beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(() => web.close());

const allowed: HttpFetchOptions = { allowPrivateNetwork: true };

async function failure(promise: Promise<unknown>): Promise<DossierError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );
  return error as DossierError;
}

const countFor = (prefix: string) => web.requests.filter((r) => r.path.startsWith(prefix)).length;

describe("httpFetch", () => {
  it("fetches a page with its status, headers, declared type and bytes", async () => {
    const result = await httpFetch(web.url("/article"), allowed);
    expect(result.status).toBe(200);
    expect(result.finalUrl).toBe(web.url("/article"));
    expect(result.contentType).toBe("text/html; charset=utf-8");
    expect(result.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(result.redirects).toEqual([]);
    expect(new TextDecoder().decode(result.bytes)).toContain("Tidal Power in the Bay of Fundy");
    expect(web.requests.at(-1)).toMatchObject({ method: "GET", path: "/article" });
  });

  it("follows a redirect chain (absolute, relative and root-relative Locations)", async () => {
    const result = await httpFetch(web.url("/chain/1"), allowed);
    expect(result.redirects).toEqual([
      web.url("/chain/2"),
      web.url("/chain/3"),
      web.url("/article?from=chain"),
    ]);
    expect(result.finalUrl).toBe(web.url("/article?from=chain"));
    expect(result.status).toBe(200);
  });

  it("stops after 5 redirects", async () => {
    const before = countFor("/loop/");
    const error = await failure(httpFetch(web.url("/loop/0"), allowed));
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.details).toMatchObject({ reason: "too-many-redirects", maxRedirects: 5 });
    expect(error.message).toContain("more than 5 redirects");
    expect(countFor("/loop/") - before).toBe(6);
  });

  it("fails on a redirect without a Location", async () => {
    const error = await failure(httpFetch(web.url("/redirect-no-location"), allowed));
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.details.reason).toBe("redirect-without-location");
  });

  it("turns a 404 into a non-retryable PROVIDER_ERROR naming the status", async () => {
    const error = await failure(httpFetch(web.url("/missing"), allowed));
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(`fetch ${web.url("/missing")}: HTTP 404`);
    expect(error.details).toMatchObject({ status: 404 });
    expect(error.details.retryAfterMs).toBeUndefined();
  });

  it("turns a 503 into a retryable PROVIDER_ERROR with the server's Retry-After", async () => {
    const error = await failure(httpFetch(web.url("/unavailable"), allowed));
    expect(error.code).toBe("PROVIDER_ERROR");
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ status: 503, retryAfterMs: 7000, body: "try later" });
  });

  it("cuts a 50 MB streamed body at the 10 MB limit with a clear error, without reading it all", async () => {
    const error = await failure(httpFetch(web.url("/huge"), allowed));
    expect(error.code).toBe("TOO_LARGE");
    expect(error.message).toContain(`exceeds the size limit of ${DEFAULT_MAX_BYTES} bytes (10 MB)`);
    expect(error.details.limitBytes).toBe(DEFAULT_MAX_BYTES);
    expect(error.details.receivedBytes).toBeGreaterThan(DEFAULT_MAX_BYTES);
    expect(web.hugeBytesSent()).toBeLessThan(HUGE_BODY_BYTES);
  });

  it("refuses a body whose Content-Length is over the limit before reading it", async () => {
    const error = await failure(httpFetch(web.url("/huge-declared"), allowed));
    expect(error.code).toBe("TOO_LARGE");
    expect(error.details).toMatchObject({ limitBytes: DEFAULT_MAX_BYTES, declaredBytes: HUGE_BODY_BYTES });
  });

  it("honours a smaller maxBytes", async () => {
    const error = await failure(httpFetch(web.url("/article"), { ...allowed, maxBytes: 100 }));
    expect(error.code).toBe("TOO_LARGE");
    expect(error.details.limitBytes).toBe(100);
  });

  it("times out on an endpoint that never answers (TIMEOUT, retryable)", async () => {
    const error = await failure(httpFetch(web.url("/hang"), { ...allowed, timeoutMs: 50 }));
    expect(error.code).toBe("TIMEOUT");
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ url: web.url("/hang"), timeoutMs: 50 });
  });

  it("times out on a body that stalls", async () => {
    const error = await failure(httpFetch(web.url("/stall-body"), { ...allowed, timeoutMs: 50 }));
    expect(error.code).toBe("TIMEOUT");
  });

  it("rejects with the caller's abort reason when cancelled", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const promise = httpFetch(web.url("/hang"), { ...allowed, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 10);
    await expect(promise).rejects.toBe(reason);
  });

  it("reports a DNS failure as a non-retryable NETWORK_ERROR", async () => {
    const resolve: Resolver = async (host) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    };
    const error = await failure(httpFetch("http://no-such-host.test/page", { resolve }));
    expect(error.code).toBe("NETWORK_ERROR");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      "fetch http://no-such-host.test/page: DNS lookup of no-such-host.test failed (ENOTFOUND)",
    );
    expect(error.details).toMatchObject({ reason: "dns", code: "ENOTFOUND", hostname: "no-such-host.test" });
  });

  it("reports a refused connection as a retryable NETWORK_ERROR", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await failure(httpFetch(`http://127.0.0.1:${port}/`, allowed));
    expect(error.code).toBe("NETWORK_ERROR");
    expect(error.retryable).toBe(true);
    expect(error.details.code).toBe("ECONNREFUSED");
  });
});

describe("httpFetch and the SSRF guard", () => {
  /** `public.test` resolves to the fake web and the test policy treats it as public. */
  const publicHost: HttpFetchOptions = {
    resolve: async () => [{ address: "127.0.0.1", family: 4 as const }],
    isAllowed: (_address, hostname) => hostname === "public.test",
  };
  const publicUrl = (path: string) => `http://public.test:${web.port}${path}`;

  it("refuses the fake web's loopback address without the allow flag, with no request made", async () => {
    const before = web.requests.length;
    const error = await failure(httpFetch(web.url("/article")));
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.details).toMatchObject({ reason: "private-address", address: "127.0.0.1" });
    expect(web.requests.length).toBe(before);
  });

  it("serves a public-looking host through the injected resolver and policy", async () => {
    const result = await httpFetch(publicUrl("/article"), publicHost);
    expect(result.status).toBe(200);
    expect(web.requests.at(-1)).toMatchObject({ path: "/article", host: `public.test:${web.port}` });
  });

  it.each([
    ["http://169.254.169.254/latest/meta-data/", "metadata-address"],
    ["http://10.0.0.1/admin", "private-address"],
    ["http://[::1]/", "private-address"],
    ["file:///etc/passwd", "scheme"],
  ])("refuses a redirect from the public host to %s before connecting", async (target, reason) => {
    const before = web.requests.length;
    const error = await failure(
      httpFetch(publicUrl(`/redirect?to=${encodeURIComponent(target)}`), publicHost),
    );
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.details.reason).toBe(reason);
    expect(web.requests.length - before).toBe(1);
  });

  it("refuses a redirect to a host name that resolves to a private address, at connect time", async () => {
    const before = web.requests.length;
    const target = `http://internal.test:${web.port}/article`;
    const error = await failure(
      httpFetch(publicUrl(`/redirect?to=${encodeURIComponent(target)}`), publicHost),
    );
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.details).toMatchObject({
      reason: "private-address",
      address: "127.0.0.1",
      hostname: "internal.test",
    });
    expect(web.requests.slice(before).map((r) => r.path)).toEqual([
      `/redirect?to=${encodeURIComponent(target)}`,
    ]);
  });

  it("follows the same redirect to a private address when private networks are allowed", async () => {
    const result = await httpFetch(
      web.url(`/redirect?to=${encodeURIComponent(web.url("/article"))}`),
      allowed,
    );
    expect(result.finalUrl).toBe(web.url("/article"));
  });
});
