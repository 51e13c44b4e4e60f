import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import {
  checkUrl,
  classifyAddress,
  createGuardedAgent,
  type GuardOptions,
  guardedLookup,
  type Resolver,
} from "./ssrf-guard.ts";

const strict: GuardOptions = { allowPrivateNetwork: false };

function refusal(fn: () => unknown): DossierError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DossierError);
    return error as DossierError;
  }
  throw new Error("expected a refusal");
}

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["169.254.10.10", "linkLocal"],
    ["fe80::1", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.127.255.254", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::a00:1", "private"],
    ["2002:c0a8:0101::1", "private"],
  ])("refuses %s as a private address (%s)", (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range, reason: "private-address" });
  });

  it.each(["169.254.169.254", "fd00:ec2::254", "::ffff:169.254.169.254", "100.100.100.200"])(
    "refuses the metadata address %s",
    (address) => {
      expect(classifyAddress(address)).toMatchObject({ allowed: false, reason: "metadata-address" });
    },
  );

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])(
    "allows the public address %s",
    (address) => {
      expect(classifyAddress(address).allowed).toBe(true);
    },
  );
});

describe("checkUrl", () => {
  it.each([
    ["file:///etc/passwd", "file"],
    ["ftp://example.org/x", "ftp"],
    ["gopher://example.org/", "gopher"],
    ["data:text/plain,hi", "data"],
  ])("refuses %s by scheme, even when private networks are allowed", (url, scheme) => {
    for (const options of [strict, { allowPrivateNetwork: true }]) {
      const error = refusal(() => checkUrl(url, options));
      expect(error.code).toBe("NETWORK_REFUSED");
      expect(error.details).toMatchObject({ reason: "scheme", scheme });
      expect(error.message).toContain("only http and https are allowed");
    }
  });

  it("refuses the metadata URL and names the address", () => {
    const error = refusal(() => checkUrl("http://169.254.169.254/latest/meta-data/", strict));
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.details).toMatchObject({ reason: "metadata-address", address: "169.254.169.254" });
    expect(error.message).toContain("169.254.169.254");
  });

  it.each([
    ["http://127.0.0.1:8080/", "127.0.0.1", "private-address"],
    ["http://[::1]/", "::1", "private-address"],
    ["http://[::ffff:7f00:1]/", "::ffff:7f00:1", "private-address"],
    ["http://2130706433/", "127.0.0.1", "private-address"],
    ["http://0x7f.1/", "127.0.0.1", "private-address"],
    ["http://10.0.0.1/", "10.0.0.1", "private-address"],
    ["https://[fd00:ec2::254]/", "fd00:ec2::254", "metadata-address"],
  ])("refuses %s (a literal %s)", (url, address, reason) => {
    const error = refusal(() => checkUrl(url, strict));
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.details).toMatchObject({ reason, address });
  });

  it.each([
    "http://localhost:3000/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://metadata.google.internal/",
  ])("refuses the host name in %s", (url) => {
    const error = refusal(() => checkUrl(url, strict));
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(["private-hostname", "metadata-hostname"]).toContain(error.details.reason);
  });

  it("passes public URLs and host names that need DNS, and everything when private networks are allowed", () => {
    expect(checkUrl("https://example.org/a?b=1", strict).href).toBe("https://example.org/a?b=1");
    expect(checkUrl("http://93.184.216.34/", strict).hostname).toBe("93.184.216.34");
    expect(checkUrl("http://127.0.0.1:9/", { allowPrivateNetwork: true }).port).toBe("9");
    expect(checkUrl("http://169.254.169.254/", { allowPrivateNetwork: true }).hostname).toBe(
      "169.254.169.254",
    );
  });

  it("rejects a malformed URL as invalid input", () => {
    expect(refusal(() => checkUrl("not a url", strict)).code).toBe("INPUT_INVALID");
  });
});

describe("guardedLookup", () => {
  const lookup = (options: GuardOptions, host: string, all = true) =>
    new Promise<unknown>((resolve, reject) => {
      guardedLookup(options)(host, { all }, (error, address, family) =>
        error ? reject(error) : resolve(all ? address : { address, family }),
      );
    });

  it("refuses a host whose DNS answer is private, naming the address and the host", async () => {
    const resolve: Resolver = async () => [{ address: "10.0.0.7", family: 4 }];
    const error = (await lookup({ allowPrivateNetwork: false, resolve }, "intranet.test").catch(
      (e) => e,
    )) as DossierError;
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.details).toMatchObject({
      reason: "private-address",
      address: "10.0.0.7",
      hostname: "intranet.test",
    });
    expect(error.message).toBe(
      "refused to connect to 10.0.0.7 (resolved from intranet.test): a private address; set DOSSIER_ALLOW_PRIVATE_NETWORK=1 to allow private networks",
    );
  });

  it("refuses when any one of several answers is private (mixed answers, rebinding)", async () => {
    const resolve: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "169.254.169.254", family: 4 },
    ];
    const error = (await lookup({ allowPrivateNetwork: false, resolve }, "mixed.test").catch(
      (e) => e,
    )) as DossierError;
    expect(error.details.reason).toBe("metadata-address");
  });

  it("passes public answers in both callback forms, and private ones when allowed", async () => {
    const resolve: Resolver = async () => [{ address: "93.184.216.34", family: 4 }];
    expect(await lookup({ allowPrivateNetwork: false, resolve }, "public.test")).toEqual([
      { address: "93.184.216.34", family: 4 },
    ]);
    expect(await lookup({ allowPrivateNetwork: false, resolve }, "public.test", false)).toEqual({
      address: "93.184.216.34",
      family: 4,
    });
    const loopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    expect(await lookup({ allowPrivateNetwork: true, resolve: loopback }, "dev.test")).toEqual([
      { address: "127.0.0.1", family: 4 },
    ]);
  });

  it("passes a resolver failure through unchanged", async () => {
    const resolve: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.test"), { code: "ENOTFOUND" });
    };
    await expect(lookup({ allowPrivateNetwork: false, resolve }, "nowhere.test")).rejects.toMatchObject({
      code: "ENOTFOUND",
    });
  });
});

describe("createGuardedAgent", () => {
  let server: Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end("hello");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("refuses a literal private address at connect time, before any request", async () => {
    const agent = createGuardedAgent(strict);
    const before = hits;
    const error = await fetch(`http://127.0.0.1:${port}/`, { dispatcher: agent }).catch((e) => e);
    expect((error as { cause?: unknown }).cause).toMatchObject({ code: "NETWORK_REFUSED" });
    expect(hits).toBe(before);
    await agent.close();
  });

  it("refuses a host name that resolves to loopback, and connects when the test hook trusts it", async () => {
    const resolve: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    const before = hits;
    const refusing = createGuardedAgent({ allowPrivateNetwork: false, resolve });
    const error = await fetch(`http://rebound.test:${port}/`, { dispatcher: refusing }).catch((e) => e);
    expect((error as { cause?: DossierError }).cause?.details).toMatchObject({
      reason: "private-address",
      hostname: "rebound.test",
    });
    expect(hits).toBe(before);
    const trusting = createGuardedAgent({
      allowPrivateNetwork: false,
      resolve,
      isAllowed: (_address, hostname) => hostname === "public.test",
    });
    const response = await fetch(`http://public.test:${port}/`, { dispatcher: trusting });
    expect(await response.text()).toBe("hello");
    expect(hits).toBe(before + 1);
    await Promise.all([refusing.close(), trusting.close()]);
  });
});
