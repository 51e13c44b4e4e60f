/**
 * Redacting credentials from URLs before they are recorded or printed: user-info becomes
 * `***` (`https://***@host/…`), and query parameters that carry keys or tokens are masked.
 */

const SECRET_PARAMS = /^(api[-_]?key|key|token|access[-_]?token|secret|password|auth)$/i;

/** `url` with user-info and secret query parameters masked; text that is no URL is returned as is. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^/@\s]*@/g, "//***@");
  }
  let changed = false;
  if (parsed.username || parsed.password) {
    parsed.username = "***";
    parsed.password = "";
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.test(name)) {
      parsed.searchParams.set(name, "***");
      changed = true;
    }
  }
  return changed ? parsed.toString().replace("%2A%2A%2A", "***") : url;
}

/** `text` with the user-info of every URL in it masked. */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b(https?:\/\/)[^/@\s]+@/gi, "$1***@");
}
