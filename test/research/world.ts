/**
 * A research world on loopback for end-to-end tests and benchmarks: the fake OpenAI-compatible
 * model server driven by the model script, a SearXNG-format search server whose results point
 * at pages of a fake web server, a configuration that uses them, and a store in a temp dir.
 *
 * Every world started during a test has its model script checked when the test ends (the
 * setup file `test/strict-scripts.ts`), and the test fails on any unexpected call or any role
 * used less than declared — no test has to remember to check. (A world started in `beforeAll`
 * is checked after the first test.)
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../src/core/clock.ts";
import { type Config, configSchema } from "../../src/runtime/config.ts";
import { registryFromConfig } from "../../src/runtime/models.ts";
import { prepareResearch, type ResearchEnvironment, startResearch } from "../../src/runtime/research.ts";
import type { ResearchRequest } from "../../src/runtime/research-request.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fake-openai/index.ts";
import type { RecordedRequest } from "../fake-openai/types.ts";
import { type FakeSearch, startFakeSearch } from "../fake-search/index.ts";
import { type FakeWeb, startFakeWeb } from "../fake-web/index.ts";
import { createModelScript, type ModelScript, type ModelScriptOptions } from "./model-script.ts";
import { registerScript } from "./script-checks.ts";

/** Options of {@link startResearchWorld}. */
export interface WorldOptions extends ModelScriptOptions {
  /** Every search request fails with this HTTP status. */
  searchFailsWith?: number;
  /** A search whose query this returns true for fails with HTTP 500 (the others answer). */
  searchFailsFor?: (query: string) => boolean;
  /** Latency of page answers (ms); also of search answers unless `searchLatencyMs` is given. */
  toolLatencyMs?: number;
  /** Latency of search answers (ms), or of each as a function of its query. Default `toolLatencyMs`. */
  searchLatencyMs?: number | ((q: string) => number);
  /** Latency of the answer for page `n` (ms); replaces `toolLatencyMs` for pages. */
  pageLatencyMs?: (n: number) => number;
  /** Price the fake model (USD per million tokens). */
  price?: { inputPerMTok: number; outputPerMTok: number };
  /** Extra configuration. */
  config?: Partial<Config>;
  /**
   * Awaited before the script answers a model request: lets a test hold answers back until the
   * calls it expects are all in flight.
   */
  hold?: (request: RecordedRequest) => Promise<void>;
  /**
   * Other pages instead of the twenty fake ones (benchmarks over real text): page `n` (1-based)
   * is served at `/page/n` as an article of its paragraphs, and a search answers with the five
   * pages `rank` puts first for its query.
   */
  pages?: WorldPages;
  /**
   * False: pages answer without ETag or Last-Modified, in full to every request (a server that
   * sends no validators, so a refresh reads every page's text again). Default true.
   */
  validators?: boolean;
  /** Results a search answers with (default 5); a run asking for fewer keeps only the first. */
  searchResults?: number;
  /** The snippet of page `n` (1-based) whose text is `text`; default its first characters. */
  snippet?: (text: string, n: number) => string;
  /** The URL a search result for page `n` names, given the query; default `/page/n` of the web. */
  resultUrl?: (pageUrl: string, query: string) => string;
}

/** The pages of a world and how its search ranks them. */
export interface WorldPages {
  pages: readonly { title: string; text: string }[];
  /** Page numbers (1-based), best first, for a query. */
  rank(query: string): number[];
}

/** A running world. */
export interface ResearchWorld {
  model: FakeOpenAI;
  script: ModelScript;
  search: FakeSearch;
  web: FakeWeb;
  home: string;
  config: Config;
  /**
   * Changes the content of the fake pages `pages` (1-based): each gets its next revision, whose
   * every sentence differs from the one before (new figures, a later year). A page answers with
   * an ETag and Last-Modified of its revision and `304 Not Modified` to a matching conditional
   * request.
   */
  changePages(pages: readonly number[]): void;
  /** Each answer of a fake page, in order: its number and HTTP status (304 for not modified). */
  pageAnswers: { page: number; status: number }[];
  /**
   * From now on a search whose query `match` accepts answers with pages `pages` first (then its
   * usual results, five in all): pages a run that searched before never saw.
   */
  addSearchResults(match: (query: string) => boolean, pages: readonly number[]): void;
  /** Pages `pages` vanish: they answer 404 from now on. */
  removePages(pages: readonly number[]): void;
  /** Runs research to its end. */
  research(
    request: ResearchRequest,
    env?: Partial<ResearchEnvironment> & { clock?: Clock },
  ): ReturnType<typeof runWorld>;
  close(): Promise<void>;
}

/** The text of fake page `n` at revision `revision` (0, the first, unless a test changed it). */
export function pageText(n: number, revision = 0): string {
  if (revision > 0) {
    return [
      `Topic ${n} saw revised growth of ${20 + n + revision} percent in ${2025 + revision} according to the updated survey.`,
      `Revision ${revision} of the topic ${n} figures credits new suppliers and falling prices in every region.`,
      `Reviewers of topic ${n} now report that durability concerns were settled by field tests.`,
    ].join(" ");
  }
  return [
    `Topic ${n} saw measured growth of ${10 + n} percent in 2025 according to the annual survey.`,
    `Analysts attribute the change in topic ${n} to lower costs and wider adoption across regions.`,
    `Critics of topic ${n} point to open questions about durability and long-term supply.`,
  ].join(" ");
}

/** The fake pages a search for `query` finds, best first: five from the first number in the query. */
export function searchPages(query: string): number[] {
  const k = (Number(/\d+/.exec(query)?.[0] ?? "1") % 20) + 1;
  return [0, 1, 2, 3, 4].map((i) => ((k - 1 + i) % 20) + 1);
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A page as HTML: a title, then its text's blank-line-separated paragraphs (escaped). */
function pageHtml(title: string, text: string): string {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join("");
  return `<!doctype html><html><head><title>${escapeHtml(title)}</title></head><body><nav>Home | About</nav><article><h1>${escapeHtml(title)}</h1>${paragraphs}</article><footer>Copyright</footer></body></html>`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { takeScriptViolations } from "./script-checks.ts";

async function runWorld(
  world: Pick<ResearchWorld, "model" | "script" | "search" | "web" | "home" | "config">,
  request: ResearchRequest,
  env: Partial<ResearchEnvironment> = {},
) {
  const store = openSqliteStore({ home: world.home });
  const registry = registryFromConfig(world.config);
  const fastRetry = { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20, jitter: 0, maxRetryAfterMs: 1000 };
  const base = {
    config: world.config,
    store,
    registry,
    env: {},
    cwd: world.home,
    toolPolicy: { retry: fastRetry },
    ...env,
  };
  try {
    const prepared = await prepareResearch(request, base);
    const handle = startResearch(prepared, base);
    const result = await handle.done;
    const events = await store.events.list(handle.runId);
    return { ...result, runId: handle.runId, events, prepared };
  } finally {
    await store.close();
  }
}

/** Starts the servers and builds the configuration. */
export async function startResearchWorld(options: WorldOptions = {}): Promise<ResearchWorld> {
  const script = createModelScript(options);
  registerScript(script);
  const hold = options.hold;
  const handler = hold
    ? async (request: RecordedRequest) => {
        await hold(request);
        return script.handler(request);
      }
    : script.handler;
  const model = await startFakeOpenAI({ handler });
  const routes: Record<
    string,
    (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => Promise<void>
  > = {};
  const pageCount = options.pages?.pages.length ?? 20;
  const revisions = new Map<number, number>();
  const removed = new Set<number>();
  const pageAnswers: { page: number; status: number }[] = [];
  const injected: { match: (query: string) => boolean; pages: readonly number[] }[] = [];
  for (let n = 1; n <= pageCount; n++) {
    routes[`/page/${n}`] = async (req, res) => {
      const latency = options.pageLatencyMs?.(n) ?? options.toolLatencyMs;
      if (latency) await sleep(latency);
      if (removed.has(n)) {
        pageAnswers.push({ page: n, status: 404 });
        res.writeHead(404, { "content-type": "text/html; charset=utf-8" });
        res.end("<!doctype html><html><body><h1>Not Found</h1></body></html>");
        return;
      }
      const revision = revisions.get(n) ?? 0;
      const etag = `"page-${n}-r${revision}"`;
      const lastModified = new Date(Date.UTC(2025, 0, 1 + revision)).toUTCString();
      const sendValidators = options.validators !== false;
      if (sendValidators && req.headers["if-none-match"] === etag) {
        pageAnswers.push({ page: n, status: 304 });
        res.writeHead(304, { etag, "last-modified": lastModified });
        res.end();
        return;
      }
      const other = options.pages?.pages[n - 1];
      const html = other
        ? pageHtml(other.title, revision ? `${other.text}\n\nRevision ${revision}.` : other.text)
        : `<!doctype html><html><head><title>Page ${n}</title></head><body><nav>Home | About</nav><article><h1>Page ${n}</h1><p>${pageText(n, revision)}</p></article><footer>Copyright</footer></body></html>`;
      pageAnswers.push({ page: n, status: 200 });
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        ...(sendValidators ? { etag, "last-modified": lastModified } : {}),
      });
      res.end(html);
    };
  }
  const web = await startFakeWeb({ routes: routes as never });
  const search = await startFakeSearch({
    latencyMs:
      typeof options.searchLatencyMs === "function"
        ? (query) => (options.searchLatencyMs as (q: string) => number)(String(query.q ?? ""))
        : (options.searchLatencyMs ?? options.toolLatencyMs ?? 0),
    handler: (request) => {
      if (options.searchFailsWith) return { kind: "error", status: options.searchFailsWith };
      const q = String(request.query.q ?? "");
      if (options.searchFailsFor?.(q)) return { kind: "error", status: 500 };
      const count = options.searchResults ?? 5;
      const urlOf = (n: number) => options.resultUrl?.(web.url(`/page/${n}`), q) ?? web.url(`/page/${n}`);
      if (options.pages) {
        const { pages, rank } = options.pages;
        return {
          kind: "results",
          results: rank(q)
            .slice(0, count)
            .map((n) => ({
              title: pages[n - 1]!.title,
              url: urlOf(n),
              snippet:
                options.snippet?.(pages[n - 1]!.text, n) ??
                pages[n - 1]!.text.replace(/\s+/g, " ").slice(0, 200),
            })),
        };
      }
      const first = injected.flatMap((i) => (i.match(q) ? i.pages : []));
      const usual = searchPages(q);
      return {
        kind: "results",
        results: [...new Set([...first, ...usual])].slice(0, count).map((n) => {
          const snippet = options.snippet?.(pageText(n), n) ?? pageText(n).slice(0, 120);
          return { title: `Page ${n}`, url: urlOf(n), snippet };
        }),
      };
    },
  });
  const home = mkdtempSync(join(tmpdir(), "dossier-world-"));
  const modelName = "openai-compatible:fake-model";
  const config = configSchema.parse({
    model: modelName,
    baseUrl: model.url,
    apiKey: "sk-test",
    search: ["searxng"],
    searxngUrl: search.baseUrl("searxng"),
    allowPrivateNetwork: true,
    home,
    ...(options.price ? { prices: { [modelName]: options.price } } : {}),
    ...options.config,
  });
  const world = { model, script, search, web, home, config };
  return {
    ...world,
    pageAnswers,
    changePages: (pages) => {
      for (const n of pages) revisions.set(n, (revisions.get(n) ?? 0) + 1);
    },
    addSearchResults: (match, pages) => {
      injected.push({ match, pages });
    },
    removePages: (pages) => {
      for (const n of pages) removed.add(n);
    },
    research: (request, env) => runWorld(world, request, env),
    close: async () => {
      await Promise.all([model.close(), search.close(), web.close()]);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
