/**
 * The Host/Origin policy and its middleware alone (the loopback servers of `host-guard.test.ts`
 * check them on every route family): which names a bind answers to, how `Host`, `Origin` and
 * `--allowed-host` values are read, and the 403 answers.
 */

import { networkInterfaces } from "node:os";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { hostGuard, hostPolicy, parseAllowedHost } from "./host-guard.ts";

describe("hostPolicy", () => {
  it("allows a loopback bind's names with its port only", () => {
    const policy = hostPolicy({ host: "127.0.0.1", port: 8787 });
    for (const host of ["127.0.0.1:8787", "localhost:8787", "LOCALHOST:8787", "[::1]:8787"])
      expect(policy.allowsHost(host), host).toBe(true);
    for (const host of [
      "127.0.0.1",
      "localhost:8788",
      "evil.example:8787",
      "localhost.:8787",
      "user@localhost:8787",
      "localhost:8787/x",
      "",
      undefined,
    ])
      expect(policy.allowsHost(host), String(host)).toBe(false);
    expect(policy.allowsOrigin("http://localhost:8787")).toBe(true);
    expect(policy.allowsOrigin("http://[::1]:8787")).toBe(true);
    for (const origin of ["null", "http://localhost:8788", "file://", "http://evil.example:8787", "x"])
      expect(policy.allowsOrigin(origin), origin).toBe(false);
  });

  it("allows an IPv6 loopback bind, a wildcard bind's interfaces and a LAN bind's own address", () => {
    expect(hostPolicy({ host: "::1", port: 80 }).allowsHost("localhost")).toBe(true);
    const wildcard = hostPolicy({
      host: "0.0.0.0",
      port: 9000,
      interfaceAddresses: () => ["192.168.1.5", "fe80::1%eth0"],
    });
    for (const host of ["192.168.1.5:9000", "[fe80::1]:9000", "localhost:9000"])
      expect(wildcard.allowsHost(host), host).toBe(true);
    expect(wildcard.allowsHost("192.168.1.6:9000")).toBe(false);
    const lan = hostPolicy({ host: "192.168.1.5", port: 9000 });
    expect(lan.allowsHost("192.168.1.5:9000")).toBe(true);
    expect(lan.allowsHost("localhost:9000")).toBe(false);
  });

  it("reads allowed hosts as a name on any port or a name with its port", () => {
    const policy = hostPolicy({
      host: "127.0.0.1",
      port: 8787,
      allowedHosts: ["Dossier.Example", "box.lan:81"],
    });
    expect(policy.allowsHost("dossier.example")).toBe(true);
    expect(policy.allowsHost("dossier.example:8443")).toBe(true);
    expect(policy.allowsOrigin("https://dossier.example")).toBe(true);
    expect(policy.allowsHost("box.lan:81")).toBe(true);
    expect(policy.allowsHost("box.lan")).toBe(false);
    expect(policy.allowsHost("sub.dossier.example")).toBe(false);
    expect(parseAllowedHost(" Box.LAN:81 ")).toBe("box.lan:81");
    for (const bad of ["", "http://x", "a b", "x/y", "u@x", "x.:80"])
      expect(() => parseAllowedHost(bad), bad).toThrow(/--allowed-host/);
  });
});

describe("hostPolicy — the names it lists and the edges of what it reads", () => {
  it("lists each allowed authority once, in order, any-port names without a port", () => {
    const policy = hostPolicy({
      host: "localhost",
      port: 8787,
      allowedHosts: ["box.lan:81", "box.lan", "Box.LAN", "localhost:8787", "[::1]:9"],
    });
    expect(policy.allowed).toEqual([
      "localhost:8787",
      "127.0.0.1:8787",
      "[::1]:8787",
      "box.lan:81",
      "box.lan",
      "[::1]:9",
    ]);
    // A name on any port stays allowed on every port, also after the same name with a port.
    expect(policy.allowsHost("box.lan:82")).toBe(true);
    expect(policy.allowsHost("[::1]:9")).toBe(true);
    expect(policy.allowsHost("[::1]:10")).toBe(false);
  });

  it("reads the bound address as a URL would (case, IPv6 brackets) and knows every loopback address", () => {
    // A LAN name bound in mixed case answers to its lower-case form only.
    const lan = hostPolicy({ host: "Box.LAN", port: 80 });
    expect(lan.allowed).toEqual(["box.lan:80"]);
    expect(lan.allowsHost("BOX.lan")).toBe(true);
    expect(lan.allowsHost("localhost")).toBe(false);
    // Loopback binds by name or by any 127.x.y.z address answer to the loopback names too.
    for (const host of ["localhost", "127.0.0.10", "127.1.22.233", "::1", "[::1]"]) {
      const policy = hostPolicy({ host, port: 80 });
      for (const name of ["localhost", "127.0.0.1", "[::1]"])
        expect(policy.allowsHost(name), `${host}: ${name}`).toBe(true);
    }
    // Names that only look like a loopback address are not one.
    for (const host of ["127.0.0.1.nip.io", "x.127.0.0.1", "127.0.0.1234", "localhost.lan", "[::2]"]) {
      const policy = hostPolicy({ host, port: 80 });
      expect(policy.allowsHost("localhost"), host).toBe(false);
      expect(policy.allowsHost("127.0.0.1"), host).toBe(false);
    }
    // An address that does not read as a host allows nothing but the allowed names.
    const odd = hostPolicy({ host: "not a host", port: 80, allowedHosts: ["box.lan"] });
    expect(odd.allowed).toEqual(["not a host:80", "box.lan"]);
    expect(odd.allowsHost("box.lan")).toBe(true);
  });

  it("treats every spelling of a wildcard bind alike, and skips interface addresses that are no host", () => {
    const interfaceAddresses = () => ["10.0.0.7", "fd00::2%eth0", "", "not an address", "fe80::1%25lo"];
    for (const host of ["0.0.0.0", "::", "[::]", "::0", "0:0:0:0:0:0:0:0"]) {
      const policy = hostPolicy({ host, port: 7, interfaceAddresses });
      expect(policy.allowed, host).toEqual([
        "localhost:7",
        "127.0.0.1:7",
        "[::1]:7",
        "10.0.0.7:7",
        "[fd00::2]:7",
        "[fe80::1]:7",
      ]);
    }
    // By default the machine's own interface addresses.
    const policy = hostPolicy({ host: "0.0.0.0", port: 7 });
    const addresses = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((info) => (info.address.includes(":") ? `[${info.address.replace(/%.*$/, "")}]` : info.address));
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(policy.allowsHost(`${address}:7`), address).toBe(true);
  });

  it("reads a Host of up to 300 characters, and no Host a URL would refuse", () => {
    const name = `${"a".repeat(296)}.lan`;
    expect(name).toHaveLength(300);
    const policy = hostPolicy({ host: "127.0.0.1", port: 80, allowedHosts: [name, `b${name.slice(1)}`] });
    expect(policy.allowsHost(name)).toBe(true);
    expect(policy.allowsHost(`${name}:80`)).toBe(false);
    expect(policy.allowsHost(`${name.slice(3)}:80`)).toBe(false);
    expect(parseAllowedHost(name)).toBe(name);
    expect(() => parseAllowedHost(`x${name}`)).toThrow(/--allowed-host/);
    for (const host of ["[::1", "localhost:99999", "localhost:x", ":80"])
      expect(policy.allowsHost(host), host).toBe(false);
    expect(policy.allowsHost("localhost")).toBe(true);
  });

  it("shows at most 100 characters of a refused allowed host", () => {
    const bad = `http://${"x".repeat(200)}`;
    expect(() => parseAllowedHost(bad)).toThrow(expect.objectContaining({ code: "INPUT_INVALID" }));
    expect(() => parseAllowedHost(bad)).toThrow(
      `--allowed-host expects a host name, optionally with a port (dossier.example.com, box.lan:8787), got "${bad.slice(0, 100)}"`,
    );
  });

  it("allows only an http(s) origin of its own, exactly as a browser sends it, on the scheme's default port", () => {
    const policy = hostPolicy({ host: "127.0.0.1", port: 8787 });
    expect(policy.allowsOrigin("http://localhost:8787")).toBe(true);
    expect(policy.allowsOrigin("https://localhost:8787")).toBe(true);
    expect(policy.allowsOrigin("http://localhost:8787/")).toBe(true);
    for (const origin of [
      "ws://localhost:8787",
      "ftp://localhost:8787",
      "http://localhost:8787/x",
      "http://localhost:8787?x",
      "http://user@localhost:8787",
      "http://LOCALHOST:8787",
      "http://localhost:8787//",
    ])
      expect(policy.allowsOrigin(origin), origin).toBe(false);
    const https = hostPolicy({ host: "127.0.0.1", port: 443 });
    expect(https.allowsOrigin("https://localhost")).toBe(true);
    expect(https.allowsOrigin("http://localhost")).toBe(false);
    const http = hostPolicy({ host: "127.0.0.1", port: 80 });
    expect(http.allowsOrigin("http://localhost")).toBe(true);
    expect(http.allowsOrigin("https://localhost")).toBe(false);
  });
});

describe("hostGuard", () => {
  const app = (policy: () => ReturnType<typeof hostPolicy> | null) => {
    const a = new Hono();
    a.use("*", hostGuard(policy));
    a.get("/", (c) => c.text("ok"));
    return a;
  };
  const get = (a: Hono, headers: Record<string, string>) => a.request("/", { headers });
  const refused = async (response: Response) => ({ status: response.status, body: await response.json() });

  it("lets every request through without a policy", async () => {
    const open = app(() => null);
    const response = await get(open, { host: "evil.example", origin: "http://evil.example" });
    expect([response.status, await response.text()]).toEqual([200, "ok"]);
  });

  it("names the refused Host or Origin (at most 100 characters) and what the server answers to", async () => {
    const guarded = app(() => hostPolicy({ host: "127.0.0.1", port: 8787, allowedHosts: ["box.lan"] }));
    const allowed = "127.0.0.1:8787, localhost:8787, [::1]:8787, box.lan";
    expect(await refused(await get(guarded, {}))).toEqual({
      status: 403,
      body: {
        error: {
          code: "FORBIDDEN",
          message: `this server does not answer to the host (none): it answers to ${allowed}; start it with --allowed-host <name> to add a name`,
        },
      },
    });
    const long = `${"e".repeat(150)}.example`;
    expect(await refused(await get(guarded, { host: long }))).toEqual({
      status: 403,
      body: {
        error: {
          code: "FORBIDDEN",
          message: `this server does not answer to the host "${long.slice(0, 100)}": it answers to ${allowed}; start it with --allowed-host <name> to add a name`,
        },
      },
    });
    const origin = `http://${"o".repeat(150)}.example`;
    expect(await refused(await get(guarded, { host: "box.lan", origin }))).toEqual({
      status: 403,
      body: {
        error: {
          code: "FORBIDDEN",
          message: `requests from the origin "${origin.slice(0, 100)}" are refused: only this server's own pages (${allowed}) may call it from a browser`,
        },
      },
    });
    const ok = await get(guarded, { host: "box.lan", origin: "https://box.lan" });
    expect([ok.status, await ok.text()]).toEqual([200, "ok"]);
    // A request without an Origin (not from a browser page) is checked by its Host alone.
    const plain = await get(guarded, { host: "localhost:8787" });
    expect([plain.status, await plain.text()]).toEqual([200, "ok"]);
  });
});
