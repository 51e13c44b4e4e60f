/**
 * `crawl_page`: a page read with respect to a goal by the reader model, with verbatim-checked
 * evidence.
 */

export * from "./crawl-page.ts";
export * from "./crawl-prompt.ts";
export * from "./truncate.ts";
export * from "./verbatim.ts";
