/**
 * `fetch_page`: guarded HTTP fetching (SSRF guard, size and time limits, manual redirects),
 * content sniffing, charset detection, and extraction of HTML, PDF, text and Markdown.
 */

export * from "./blocked-ports.ts";
export * from "./charset.ts";
export * from "./fetch-page.ts";
export * from "./html-to-markdown.ts";
export * from "./http-fetch.ts";
export * from "./pdf-text.ts";
export * from "./sniff.ts";
export * from "./ssrf-guard.ts";
