/**
 * URL normalisation for deduplication: two URLs that name the same page map to the same key.
 */

const TRACKING_PARAMS = new Set([
  "gclid",
  "dclid",
  "fbclid",
  "msclkid",
  "yclid",
  "mc_cid",
  "mc_eid",
  "igshid",
  "_hsenc",
  "_hsmi",
  "ref_src",
  "spm",
]);

/** True for query parameters that only track the visitor (`utm_*`, `gclid`, `fbclid`, …). */
export function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || TRACKING_PARAMS.has(lower);
}

/**
 * A dedup key for a URL: scheme-insensitive (http = https), lower-case host without `www.`,
 * default port dropped, no fragment, no trailing slash, tracking parameters removed and the
 * remaining parameters sorted. Unparsable input is returned trimmed.
 */
export function normalizeUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return input.trim();
  }
  const host = url.hostname.toLowerCase().replace(/^www\./, "");
  const port = url.port && url.port !== "80" && url.port !== "443" ? `:${url.port}` : "";
  let path = url.pathname.replace(/\/{2,}/g, "/");
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  if (path === "/") path = "";
  const params = [...url.searchParams.entries()]
    .filter(([k]) => !isTrackingParam(k))
    .sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : "";
  const scheme = url.protocol === "http:" || url.protocol === "https:" ? "" : url.protocol;
  return `${scheme}//${host}${port}${path}${query}`;
}
