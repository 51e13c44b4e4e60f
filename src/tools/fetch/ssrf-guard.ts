/**
 * The SSRF guard: which URLs and network addresses Dossier may fetch. Only http(s) URLs pass;
 * loopback, private, link-local, CGNAT, unspecified, multicast, broadcast, reserved and cloud
 * metadata addresses (also inside IPv4-mapped and NAT64 IPv6 addresses) are refused, as are
 * host names such as `localhost` — unless the operator allows private networks
 * (`DOSSIER_ALLOW_PRIVATE_NETWORK=1`). Host names are checked again after DNS resolution, at
 * connect time, by the guarded undici agent, so DNS rebinding is covered too.
 */

import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import type ipaddrModule from "ipaddr.js";
import type { Agent } from "undici";
import { DossierError } from "../../core/errors.ts";
import { lazyModule } from "../../core/lazy-module.ts";

/** Why the guard refused a URL or an address (`details.reason` of NETWORK_REFUSED). */
export type RefusalReason =
  | "scheme"
  | "private-address"
  | "metadata-address"
  | "private-hostname"
  | "metadata-hostname"
  /** A port fetching never uses (see `blocked-ports.ts`). */
  | "port";

/** One DNS answer. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (the system resolver unless a test injects one). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** What the guard needs to decide. */
export interface GuardOptions {
  /** Allow private, loopback, link-local and metadata addresses (scheme is still checked). */
  allowPrivateNetwork: boolean;
  /**
   * Test hook: resolves host names in place of the system resolver. Production code leaves it
   * unset.
   */
  resolve?: Resolver;
  /**
   * Test hook: returns true for an address that would be refused but must be treated as public
   * when reached through `hostname` (e.g. an in-process server behind `public.test`). Never
   * consulted for the scheme. Production code leaves it unset.
   */
  isAllowed?: (address: string, hostname: string) => boolean;
}

/** The verdict on one address. */
export type AddressVerdict =
  | { allowed: true; range: string }
  | { allowed: false; range: string; reason: "private-address" | "metadata-address" };

/** Cloud metadata endpoints (AWS/GCP/Azure/OpenStack, ECS, Alibaba, Azure wire server, AWS IPv6). */
export const METADATA_ADDRESSES: readonly string[] = [
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "168.63.129.16",
  "fd00:ec2::254",
];

/** Host names refused whatever they resolve to. */
const METADATA_HOSTNAMES = new Set(["metadata.google.internal", "metadata", "instance-data"]);

/** Ranges (ipaddr.js names) that are publicly routable unicast. */
const PUBLIC_RANGES = new Set(["unicast", "as112", "amt", "as112v6"]);

/** Readable names of ipaddr.js ranges, for messages. */
const RANGE_LABELS: Record<string, string> = {
  loopback: "loopback",
  private: "private",
  uniqueLocal: "private (unique local)",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
  reserved: "reserved",
};

/** ipaddr.js, loaded on the first address check. */
const loadIpaddr = lazyModule<typeof ipaddrModule>("ipaddr.js");

/**
 * True when `normalized` (an address in ipaddr.js's normalised form) is a metadata address.
 * Parsed at each check (five literals, microseconds) rather than cached: the list is the rule.
 */
function isMetadataAddress(normalized: string): boolean {
  const ipaddr = loadIpaddr();
  return METADATA_ADDRESSES.some((a) => ipaddr.parse(a).toNormalizedString() === normalized);
}

/** Classifies an IP address literal; throws INPUT_INVALID when it is not one. */
export function classifyAddress(address: string): AddressVerdict {
  const ipaddr = loadIpaddr();
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!ipaddr.isValid(bare) || isIP(bare) === 0) {
    throw new DossierError("INPUT_INVALID", `not an IP address: ${address}`, { details: { address } });
  }
  let ip = ipaddr.parse(bare);
  if (isMetadataAddress(ip.toNormalizedString())) {
    return { allowed: false, range: ip.range(), reason: "metadata-address" };
  }
  if (ip.kind() === "ipv6") {
    const embedded = embeddedIpv4(ip as ipaddrModule.IPv6);
    if (embedded) {
      ip = embedded;
      if (isMetadataAddress(ip.toNormalizedString())) {
        return { allowed: false, range: ip.range(), reason: "metadata-address" };
      }
    }
  }
  const range = ip.range();
  return PUBLIC_RANGES.has(range)
    ? { allowed: true, range }
    : { allowed: false, range, reason: "private-address" };
}

/** The IPv4 address an IPv6 address carries (IPv4-mapped, NAT64, 6to4), if any. */
function embeddedIpv4(ip: ipaddrModule.IPv6): ipaddrModule.IPv4 | null {
  const ipaddr = loadIpaddr();
  const range = ip.range();
  const bytes = ip.toByteArray();
  if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052") {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6));
  // IPv4-compatible (deprecated ::a.b.c.d): treated like its IPv4 address.
  if (bytes.slice(0, 12).every((b) => b === 0) && !bytes.slice(12, 15).every((b) => b === 0)) {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  return null;
}

function refused(message: string, reason: RefusalReason, details: Record<string, unknown>): DossierError {
  return new DossierError("NETWORK_REFUSED", message, { retryable: false, details: { reason, ...details } });
}

/** Refuses `address` (reached through `hostname`) unless it is public or allowed. */
export function checkAddress(address: string, hostname: string, options: GuardOptions): void {
  if (options.allowPrivateNetwork) return;
  const verdict = classifyAddress(address);
  if (verdict.allowed || options.isAllowed?.(address, hostname)) return;
  const via = hostname === address ? "" : ` (resolved from ${hostname})`;
  const what =
    verdict.reason === "metadata-address"
      ? "a cloud metadata address"
      : `a ${RANGE_LABELS[verdict.range] ?? "non-public"} address`;
  throw refused(
    `refused to connect to ${address}${via}: ${what}; set DOSSIER_ALLOW_PRIVATE_NETWORK=1 to allow private networks`,
    verdict.reason,
    { address, hostname, range: verdict.range },
  );
}

/** Lower-cased host name without brackets and without a trailing dot. */
export function normalizeHostname(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/**
 * Checks a host name before any DNS lookup: IP literals are classified at once, and
 * `localhost`, `*.localhost` and metadata host names are refused.
 */
export function checkHostname(hostname: string, options: GuardOptions): void {
  if (options.allowPrivateNetwork) return;
  const host = normalizeHostname(hostname);
  if (isIP(host) !== 0) {
    checkAddress(host, host, options);
    return;
  }
  if (options.isAllowed?.(host, host)) return;
  if (host === "localhost" || host.endsWith(".localhost") || host === "localhost.localdomain") {
    throw refused(
      `refused to connect to ${host}: a loopback host name; set DOSSIER_ALLOW_PRIVATE_NETWORK=1 to allow private networks`,
      "private-hostname",
      { hostname: host },
    );
  }
  if (METADATA_HOSTNAMES.has(host)) {
    throw refused(`refused to connect to ${host}: a cloud metadata host name`, "metadata-hostname", {
      hostname: host,
    });
  }
}

/**
 * Parses and checks a URL before it is fetched: the scheme must be http or https
 * (NETWORK_REFUSED, reason `scheme`), and a literal IP or a refused host name fails at once.
 * Host names that need DNS are checked at connect time by the guarded agent.
 */
export function checkUrl(url: string | URL, options: GuardOptions): URL {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch (error) {
    throw new DossierError("INPUT_INVALID", `not a valid URL: ${String(url)}`, {
      cause: error,
      details: { url: String(url) },
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw refused(
      `refused to fetch ${parsed.protocol}// URL ${parsed.href}: only http and https are allowed`,
      "scheme",
      { url: parsed.href, scheme: parsed.protocol.replace(/:$/, "") },
    );
  }
  if (!parsed.hostname) {
    throw new DossierError("INPUT_INVALID", `URL has no host: ${parsed.href}`, {
      details: { url: parsed.href },
    });
  }
  checkHostname(parsed.hostname, options);
  return parsed;
}

/** The system resolver (`dns.lookup`, every address, in the resolver's order). */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * A `net` lookup function that resolves with `options.resolve` (default: the system resolver)
 * and refuses the host when any answer is a refused address.
 */
export function guardedLookup(options: GuardOptions): LookupFunction {
  const resolve = options.resolve ?? systemResolver;
  return (hostname, lookupOptions, callback) => {
    const run = async (): Promise<ResolvedAddress[]> => {
      checkHostname(hostname, options);
      const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
      const answers = (await resolve(hostname)).filter((a) => family === 0 || a.family === family);
      if (answers.length === 0) {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: "ENOTFOUND",
          hostname,
        });
      }
      for (const answer of answers) checkAddress(answer.address, hostname, options);
      return answers;
    };
    run().then(
      (answers) => {
        if (lookupOptions.all) callback(null, answers);
        else callback(null, answers[0]!.address, answers[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}

/** undici, loaded with the first agent (the first page fetched), not with Dossier. */
export const undici = lazyModule<typeof import("undici")>("undici");

/** Options of {@link createGuardedAgent}. */
export interface GuardedAgentOptions extends GuardOptions {
  /** Time limit of establishing a connection (undici's default when unset). */
  connectTimeoutMs?: number;
}

/**
 * An undici Agent that enforces the guard at connect time: IP literals are classified before
 * the socket is opened, and host names go through {@link guardedLookup}, so the address that
 * is actually connected to is the one that was checked.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { Agent, buildConnector } = undici();
  const connector = buildConnector({
    lookup: guardedLookup(options),
    ...(options.connectTimeoutMs === undefined ? {} : { timeout: options.connectTimeoutMs }),
  });
  return new Agent({
    connect: (connectOptions, callback) => {
      const host = normalizeHostname(connectOptions.hostname);
      if (isIP(host) !== 0) {
        try {
          checkAddress(host, host, options);
        } catch (error) {
          callback(error as Error, null);
          return;
        }
      }
      connector(connectOptions, callback);
    },
  });
}
