/**
 * Ports a page is never fetched from: the Fetch standard's "bad ports" (SMTP, SSH, IRC, SIP, …),
 * which every browser and undici's fetch refuse. Refused up front, once, as NETWORK_REFUSED
 * (reason `port`, not retryable), so a URL such as `http://host:25/` costs no retries.
 */

import { DossierError } from "../../core/errors.ts";

/** The Fetch standard's bad ports (https://fetch.spec.whatwg.org/#port-blocking). */
export const BLOCKED_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The error for a URL on a blocked port. */
export function blockedPortError(url: URL): DossierError {
  return new DossierError(
    "NETWORK_REFUSED",
    `refused to fetch ${url.href}: port ${url.port} is not a web port (blocked for fetching, as in browsers)`,
    { retryable: false, details: { reason: "port", url: url.href, port: Number(url.port) } },
  );
}

/** Returns `url`, or throws NETWORK_REFUSED (reason `port`) when its port is blocked. */
export function checkPort(url: URL): URL {
  if (url.port !== "" && BLOCKED_PORTS.has(Number(url.port))) throw blockedPortError(url);
  return url;
}
