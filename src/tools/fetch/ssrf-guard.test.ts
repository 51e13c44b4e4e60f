import dnsPromises from "node:dns/promises";
import { createServer, type Server } from "node:http";
import { syncBuiltinESMExports } from "node:module";
import type { AddressInfo } from "node:net";
import { fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DossierError } from "../../core/errors.ts";
import {
  checkAddress,
  checkHostname,
  checkUrl,
  classifyAddress,
  createGuardedAgent,
  type GuardOptions,
  guardedLookup,
  normalizeHostname,
  type Resolver,
  systemResolver,
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

describe("classifyAddress: embedded IPv4, brackets, zones and public special ranges", () => {
  it.each([
    // IPv4-mapped, SIIT (RFC 6145), NAT64 (RFC 6052, also a local prefix), 6to4, IPv4-compatible.
    ["::ffff:7f00:1", "loopback", "private-address"],
    ["::ffff:0:7f00:1", "loopback", "private-address"],
    ["::ffff:0:a9fe:a9fe", "linkLocal", "metadata-address"],
    ["64:ff9b::7f00:1", "loopback", "private-address"],
    ["64:ff9b::a9fe:a9fe", "linkLocal", "metadata-address"],
    ["64:ff9b:1::a00:1", "private", "private-address"],
    ["2002:7f00:1::", "loopback", "private-address"],
    ["2002:a9fe:a9fe::1", "linkLocal", "metadata-address"],
    ["::7f00:1", "loopback", "private-address"],
    ["::a9fe:a9fe", "linkLocal", "metadata-address"],
    ["::a00:1", "private", "private-address"],
    ["::1:0", "unspecified", "private-address"],
  ])("refuses %s as its embedded IPv4 address (%s)", (address, range, reason) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range, reason });
  });

  it.each([
    ["::ffff:0:808:808", "unicast"],
    ["64:ff9b::808:808", "unicast"],
    ["2002:808:808::", "unicast"],
    ["::808:808", "unicast"],
    // Only the last 32 bits of a ::/96 address are an IPv4 address; ::5 has no IPv4 part.
    ["::5", "unicast"],
    ["192.175.48.1", "as112"],
    ["2620:4f:8000::1", "as112v6"],
    ["192.52.193.1", "amt"],
    ["2001:3::1", "amt"],
  ])("allows %s (%s)", (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: true, range });
  });

  it("keeps ::1 and :: as the IPv6 loopback and unspecified addresses", () => {
    expect(classifyAddress("::1").range).toBe("loopback");
    expect(classifyAddress("::").range).toBe("unspecified");
  });

  it("names the range a metadata address is in", () => {
    expect(classifyAddress("169.254.169.254")).toEqual({
      allowed: false,
      range: "linkLocal",
      reason: "metadata-address",
    });
    expect(classifyAddress("::ffff:a9fe:a9fe")).toEqual({
      allowed: false,
      range: "linkLocal",
      reason: "metadata-address",
    });
    expect(classifyAddress("fd00:ec2::254")).toEqual({
      allowed: false,
      range: "uniqueLocal",
      reason: "metadata-address",
    });
    for (const address of ["169.254.170.2", "168.63.129.16"]) {
      expect(classifyAddress(address)).toMatchObject({ allowed: false, reason: "metadata-address" });
    }
  });

  it("strips brackets and a zone id before classifying", () => {
    expect(classifyAddress("[::1]")).toEqual({
      allowed: false,
      range: "loopback",
      reason: "private-address",
    });
    expect(classifyAddress("fe80::1%eth0")).toEqual({
      allowed: false,
      range: "linkLocal",
      reason: "private-address",
    });
    expect(classifyAddress("[fe80::1%25eth0]").range).toBe("linkLocal");
    expect(classifyAddress("[2606:4700::1111]").allowed).toBe(true);
    // A zone id is dropped whatever follows the %, also after an IPv4 address.
    expect(classifyAddress("127.0.0.1%lo0")).toEqual({
      allowed: false,
      range: "loopback",
      reason: "private-address",
    });
  });

  it.each(["example.org", "0x7f.1", "2130706433", "1.2.3", "::1]x", "::[1", "::]1", "fe80::1 %eth0", ""])(
    "refuses to classify %j, which is not an IP address literal",
    (address) => {
      const error = refusal(() => classifyAddress(address));
      expect(error.code).toBe("INPUT_INVALID");
      expect(error.message).toBe(`not an IP address: ${address}`);
      expect(error.details).toEqual({ address });
    },
  );
});

describe("checkAddress", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["10.0.0.1", "a private address"],
    ["fd12::1", "a private (unique local) address"],
    ["169.254.1.1", "a link-local address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["0.0.0.0", "a unspecified address"],
    ["224.0.0.1", "a multicast address"],
    ["255.255.255.255", "a broadcast address"],
    ["240.0.0.1", "a reserved address"],
    ["100::1", "a non-public address"],
    ["169.254.169.254", "a cloud metadata address"],
  ])("refuses %s as %s, in one sentence", (address, what) => {
    const error = refusal(() => checkAddress(address, address, strict));
    expect(error.code).toBe("NETWORK_REFUSED");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `refused to connect to ${address}: ${what}; set DOSSIER_ALLOW_PRIVATE_NETWORK=1 to allow private networks`,
    );
    expect(error.details).toEqual({
      reason: what === "a cloud metadata address" ? "metadata-address" : "private-address",
      address,
      hostname: address,
      range: classifyAddress(address).range,
    });
  });

  it("asks the test hook with the address and the host name, and passes what it allows", () => {
    const asked: [string, string][] = [];
    const options: GuardOptions = {
      allowPrivateNetwork: false,
      isAllowed: (address, hostname) => {
        asked.push([address, hostname]);
        return hostname === "public.test";
      },
    };
    expect(() => checkAddress("127.0.0.1", "public.test", options)).not.toThrow();
    expect(refusal(() => checkAddress("127.0.0.1", "other.test", options)).details.reason).toBe(
      "private-address",
    );
    expect(() => checkAddress("8.8.8.8", "other.test", options)).not.toThrow();
    expect(asked).toEqual([
      ["127.0.0.1", "public.test"],
      ["127.0.0.1", "other.test"],
    ]);
    expect(() => checkAddress("not an address", "x", { allowPrivateNetwork: true })).not.toThrow();
  });
});

describe("checkHostname and normalizeHostname", () => {
  it("lower-cases, unbrackets and drops one trailing dot", () => {
    expect(normalizeHostname("[::1]")).toBe("::1");
    expect(normalizeHostname("Example.ORG.")).toBe("example.org");
    expect(normalizeHostname("a.b")).toBe("a.b");
    // Only a leading and a trailing bracket go.
    expect(normalizeHostname("a[b]c")).toBe("a[b]c");
  });

  it.each([
    ["localhost", "private-hostname"],
    ["LocalHost.", "private-hostname"],
    ["deep.api.localhost", "private-hostname"],
    ["localhost.localdomain", "private-hostname"],
    ["metadata", "metadata-hostname"],
    ["instance-data", "metadata-hostname"],
    ["metadata.google.internal", "metadata-hostname"],
  ])("refuses the host name %s (%s)", (hostname, reason) => {
    const error = refusal(() => checkHostname(hostname, strict));
    expect(error.code).toBe("NETWORK_REFUSED");
    const host = normalizeHostname(hostname);
    expect(error.details).toEqual({ reason, hostname: host });
    expect(error.message).toBe(
      reason === "private-hostname"
        ? `refused to connect to ${host}: a loopback host name; set DOSSIER_ALLOW_PRIVATE_NETWORK=1 to allow private networks`
        : `refused to connect to ${host}: a cloud metadata host name`,
    );
  });

  it.each([
    "localhost.example.org",
    "mylocalhost",
    "localhost-1.test",
    "metadata.example.org",
    "example.org",
  ])("passes the host name %s to DNS", (hostname) => {
    expect(() => checkHostname(hostname, strict)).not.toThrow();
  });

  it("classifies a bracketed literal at once, and lets the test hook pass a host name", () => {
    const error = refusal(() => checkHostname("[::FFFF:7F00:1]", strict));
    expect(error.details).toMatchObject({ reason: "private-address", address: "::ffff:7f00:1" });
    expect(error.message).not.toContain("resolved from");
    const asked: string[] = [];
    const hook: GuardOptions = {
      allowPrivateNetwork: false,
      isAllowed: (address, hostname) => {
        asked.push(`${address}@${hostname}`);
        return true;
      },
    };
    expect(() => checkHostname("LOCALHOST", hook)).not.toThrow();
    expect(asked).toEqual(["localhost@localhost"]);
    expect(() => checkHostname("localhost", { allowPrivateNetwork: true })).not.toThrow();
  });
});

describe("checkUrl details", () => {
  it("accepts a URL object and says what is wrong with a string that is not a URL", () => {
    const url = new URL("https://example.org/x");
    expect(checkUrl(url, strict)).toBe(url);
    const error = refusal(() => checkUrl("http://", strict));
    expect(error.code).toBe("INPUT_INVALID");
    expect(error.message).toBe("not a valid URL: http://");
    expect(error.details).toEqual({ url: "http://" });
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it("names the scheme and the URL it refuses", () => {
    const error = refusal(() => checkUrl("file:///etc/passwd", strict));
    expect(error.message).toBe(
      "refused to fetch file:// URL file:///etc/passwd: only http and https are allowed",
    );
    expect(error.details).toEqual({ reason: "scheme", url: "file:///etc/passwd", scheme: "file" });
    expect(error.retryable).toBe(false);
  });

  it.each([
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[::ffff:0:127.0.0.1]/",
    "http://[2002:7f00:1::]/",
  ])("refuses %s, loopback inside IPv6", (url) => {
    expect(refusal(() => checkUrl(url, strict)).details).toMatchObject({
      reason: "private-address",
      range: "loopback",
    });
  });

  it.each(["http://metadata/", "http://instance-data./latest", "http://localhost.localdomain/"])(
    "refuses %s by its host name",
    (url) => {
      expect(["private-hostname", "metadata-hostname"]).toContain(
        refusal(() => checkUrl(url, strict)).details.reason,
      );
    },
  );
});

describe("guardedLookup details", () => {
  const lookupWith = (
    options: GuardOptions,
    host: string,
    lookupOptions: { all?: boolean; family?: number },
  ) =>
    new Promise<unknown>((resolve, reject) => {
      guardedLookup(options)(host, lookupOptions as never, (error, address, family) =>
        error ? reject(error) : resolve(lookupOptions.all ? address : { address, family }),
      );
    });
  const both: Resolver = async () => [
    { address: "2606:4700::1111", family: 6 },
    { address: "93.184.216.34", family: 4 },
  ];

  it("keeps the answers of the family asked for, every answer when none is", async () => {
    const options = { allowPrivateNetwork: false, resolve: both };
    expect(await lookupWith(options, "dual.test", { all: true, family: 4 })).toEqual([
      { address: "93.184.216.34", family: 4 },
    ]);
    expect(await lookupWith(options, "dual.test", { all: true, family: 6 })).toEqual([
      { address: "2606:4700::1111", family: 6 },
    ]);
    expect(await lookupWith(options, "dual.test", { all: true, family: 0 })).toHaveLength(2);
    expect(await lookupWith(options, "dual.test", { all: true })).toHaveLength(2);
    expect(await lookupWith(options, "dual.test", { family: 4 })).toEqual({
      address: "93.184.216.34",
      family: 4,
    });
    expect(await lookupWith(options, "dual.test", {})).toEqual({ address: "2606:4700::1111", family: 6 });
  });

  it("answers ENOTFOUND when no answer of the family is left", async () => {
    const only6: Resolver = async () => [{ address: "2606:4700::1111", family: 6 }];
    const error = (await lookupWith({ allowPrivateNetwork: false, resolve: only6 }, "v6.test", {
      all: true,
      family: 4,
    }).catch((e) => e)) as NodeJS.ErrnoException & { hostname: string };
    expect(error.message).toBe("getaddrinfo ENOTFOUND v6.test");
    expect(error.code).toBe("ENOTFOUND");
    expect(error.hostname).toBe("v6.test");
    const none: Resolver = async () => [];
    await expect(
      lookupWith({ allowPrivateNetwork: true, resolve: none }, "empty.test", { all: true }),
    ).rejects.toMatchObject({ code: "ENOTFOUND" });
  });

  it("refuses a refused host name before asking the resolver", async () => {
    let asked = 0;
    const resolve: Resolver = async () => {
      asked += 1;
      return [{ address: "93.184.216.34", family: 4 }];
    };
    const error = (await lookupWith({ allowPrivateNetwork: false, resolve }, "localhost", {
      all: true,
    }).catch((e) => e)) as DossierError;
    expect(error.details.reason).toBe("private-hostname");
    expect(asked).toBe(0);
  });

  it("asks the system resolver for every address in its own order", async () => {
    const asked: unknown[] = [];
    const saved = dnsPromises.lookup;
    dnsPromises.lookup = (async (hostname: string, options: unknown) => {
      asked.push([hostname, options]);
      return [
        { address: "2606:4700::1111", family: 6 },
        { address: "93.184.216.34", family: 4 },
      ];
    }) as typeof dnsPromises.lookup;
    syncBuiltinESMExports();
    try {
      expect(await systemResolver("dual.test")).toEqual([
        { address: "2606:4700::1111", family: 6 },
        { address: "93.184.216.34", family: 4 },
      ]);
    } finally {
      dnsPromises.lookup = saved;
      syncBuiltinESMExports();
    }
    expect(asked).toEqual([["dual.test", { all: true, verbatim: true }]]);
  });

  it("uses the system resolver when none is given", async () => {
    // The test setup answers IP literals only; a literal is enough to see the system path.
    expect(await systemResolver("127.0.0.1")).toEqual([{ address: "127.0.0.1", family: 4 }]);
    expect(await systemResolver("::1")).toEqual([{ address: "::1", family: 6 }]);
    expect(await lookupWith({ allowPrivateNetwork: true }, "::1", { all: true })).toEqual([
      { address: "::1", family: 6 },
    ]);
  });
});

describe("createGuardedAgent details", () => {
  it("refuses a bracketed IPv6 literal at connect time", async () => {
    const agent = createGuardedAgent(strict);
    const error = await fetch("http://[::1]:8080/", { dispatcher: agent }).catch((e) => e);
    expect((error as { cause?: DossierError }).cause?.details).toMatchObject({
      reason: "private-address",
      address: "::1",
    });
    await agent.close();
  });

  it("gives up connecting after connectTimeoutMs when the resolver never answers", async () => {
    const never: Resolver = () => new Promise(() => {});
    const agent = createGuardedAgent({ allowPrivateNetwork: false, resolve: never, connectTimeoutMs: 50 });
    const error = await fetch("http://hang.test:8080/", { dispatcher: agent }).catch((e) => e);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    expect(cause?.code).toBe("UND_ERR_CONNECT_TIMEOUT");
    expect(cause?.message).toContain("timeout: 50ms");
    await agent.close();
  });
});
