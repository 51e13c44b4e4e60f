/**
 * Vitest setup: no test resolves a host name through the system resolver. `dns.lookup` (what
 * sockets and `fetch` use for a host name) and `dns/promises` `lookup` answer IP literals as
 * usual and refuse every name with ENOTFOUND; the test that asked fails when it ends, naming the
 * host. Tests use 127.0.0.1 or inject a resolver (the fetch tools take `resolve`).
 */

import dns from "node:dns";
import dnsPromises from "node:dns/promises";
import { syncBuiltinESMExports } from "node:module";
import { isIP } from "node:net";
import { afterEach } from "vitest";

const asked: string[] = [];

function refuse(hostname: string): NodeJS.ErrnoException {
  asked.push(hostname);
  return Object.assign(
    new Error(
      `getaddrinfo ENOTFOUND ${hostname} (tests never use the system resolver: use 127.0.0.1 or inject a resolver)`,
    ),
    { code: "ENOTFOUND", hostname },
  );
}

// Test files share a worker (vitest.config.ts), so this file runs once per test file: keep the
// system functions from the first run rather than wrapping the previous wrapper.
const originals = Symbol.for("dossier.test.systemLookup");
const store = globalThis as { [originals]?: [typeof dns.lookup, typeof dnsPromises.lookup] };
store[originals] ??= [dns.lookup, dnsPromises.lookup];
const [systemLookup, systemLookupPromise] = store[originals];

dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
  const cb = (typeof options === "function" ? options : callback) as (error: Error | null) => void;
  if (isIP(hostname)) return Reflect.apply(systemLookup, dns, [hostname, options, callback]);
  process.nextTick(cb, refuse(hostname));
  return {};
}) as typeof dns.lookup;

dnsPromises.lookup = ((hostname: string, options?: unknown) => {
  if (isIP(hostname)) return Reflect.apply(systemLookupPromise, dnsPromises, [hostname, options]);
  return Promise.reject(refuse(hostname));
}) as typeof dnsPromises.lookup;

// Named imports (`import { lookup } from "node:dns/promises"`) see the replacements too.
syncBuiltinESMExports();

afterEach(() => {
  if (asked.length === 0) return;
  const names = [...new Set(asked.splice(0))];
  throw new Error(`this test resolved ${names.join(", ")} through the system resolver`);
});
