import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeWeb, startFakeWeb } from "../../../test/fake-web/index.ts";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { scriptedRegistry } from "../../../test/scripted/harness.ts";
import { scriptedModel } from "../../../test/scripted/scripted-model.ts";
import type { DossierError } from "../../core/errors.ts";
import type { EventInput } from "../../core/events.ts";
import { LlmClient } from "../../llm/client.ts";
import { openSqliteStore } from "../../store/sqlite-store.ts";
import { crawlPage } from "../crawl/crawl-page.ts";
import { ToolGateway } from "../gateway.ts";
import { type SourceFilterInput, sourceFilterSchema } from "../source-filter.ts";
import { fetchPageTool } from "./fetch-page.ts";
import { type HttpFetchOptions, httpFetch } from "./http-fetch.ts";

let web: FakeWeb;
beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(() => web.close());

/** Every `*.test` host is the fake web, treated as a public host (the test's resolver and policy). */
const hosts: HttpFetchOptions = {
  resolve: async () => [{ address: "127.0.0.1", family: 4 as const }],
  isAllowed: (_address, hostname) => hostname.endsWith(".test"),
};
const at = (host: string, path: string) => `http://${host}:${web.port}${path}`;
const filter = (input: SourceFilterInput) => ({ ...hosts, sourceFilter: sourceFilterSchema.parse(input) });
/** The hosts the fake web was asked for since `from` (the Host header, without the port). */
const hostsAsked = (from: number) => web.requests.slice(from).map((r) => r.host.replace(/:\d+$/, ""));

async function failure(promise: Promise<unknown>): Promise<DossierError> {
  return (await promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  )) as DossierError;
}

describe("page fetches under a source filter", () => {
  it("fetches a host below an allowed domain", async () => {
    const before = web.requests.length;
    const page = await httpFetch(at("www.allowed.test", "/article"), filter({ domains: ["allowed.test"] }));
    expect(page.status).toBe(200);
    expect(hostsAsked(before)).toEqual(["www.allowed.test"]);
  });

  it.each([
    ["other.test", { domains: ["allowed.test"] }, "other.test is not under an allowed domain (allowed.test)"],
    ["badallowed.test", { domains: ["allowed.test"] }, "badallowed.test is not under an allowed domain"],
    [
      "a.denied.test",
      { excludeDomains: ["denied.test"] },
      "a.denied.test is under the excluded domain denied.test",
    ],
  ])("refuses %s before any request", async (host, rules, reason) => {
    const before = web.requests.length;
    const error = await failure(httpFetch(at(host, "/article"), filter(rules)));
    expect(error.code).toBe("SOURCE_FILTERED");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(reason);
    expect(web.requests.length).toBe(before);
  });

  it("refuses a redirect to a denied host: the denied host is never asked", async () => {
    const before = web.requests.length;
    const target = at("denied.test", "/article");
    const error = await failure(
      httpFetch(
        at("ok.test", `/redirect?to=${encodeURIComponent(target)}`),
        filter({ excludeDomains: ["denied.test"] }),
      ),
    );
    expect(error.code).toBe("SOURCE_FILTERED");
    expect(error.message).toContain(`redirect from ${at("ok.test", "/redirect")}`);
    expect(error.details).toMatchObject({ url: target, redirectedFrom: expect.stringContaining("ok.test") });
    expect(hostsAsked(before)).toEqual(["ok.test"]);
  });

  it("refuses a redirect out of the allow list", async () => {
    const before = web.requests.length;
    const target = at("elsewhere.test", "/article");
    const error = await failure(
      httpFetch(
        at("www.allowed.test", `/redirect?to=${encodeURIComponent(target)}`),
        filter({ domains: ["allowed.test"] }),
      ),
    );
    expect(error.code).toBe("SOURCE_FILTERED");
    expect(hostsAsked(before)).toEqual(["www.allowed.test"]);
  });

  it("fetch_page: a structured failure in one attempt, and a page cached before is not served past the filter", async () => {
    const events: EventInput[] = [];
    const store = openSqliteStore({ home: ":memory:" });
    const gateway = new ToolGateway({
      clock: instantClock(),
      emit: (e) => events.push(e),
      cache: store.cache,
    });
    const url = at("denied.test", "/article");
    const unfiltered = await fetchPageTool(gateway, url, hosts);
    expect(unfiltered.ok).toBe(true);
    // Without the filter, a second fetch is answered from the cache.
    expect(await fetchPageTool(gateway, url, hosts)).toMatchObject({ ok: true, cached: true });
    const before = web.requests.length;
    const refused = await fetchPageTool(gateway, url, filter({ excludeDomains: ["denied.test"] }));
    expect(refused).toMatchObject({ ok: false, error: { code: "SOURCE_FILTERED", retryable: false } });
    expect(!refused.ok && refused.error.message).toContain(
      "denied.test is under the excluded domain denied.test",
    );
    expect(web.requests.length).toBe(before);
    const ends = events.filter((e) => e.type === "tool-end");
    expect(ends.at(-1)).toMatchObject({ ok: false, error: { code: "SOURCE_FILTERED" } });
    await store.close();
  });

  it("crawl_page: refused before the page is fetched or the reader is asked", async () => {
    const reader = scriptedModel([]);
    const clock = instantClock();
    const llm = new LlmClient({ registry: scriptedRegistry({ reader }), clock });
    const gateway = new ToolGateway({ clock });
    const before = web.requests.length;
    const result = await crawlPage({
      llm,
      gateway,
      url: at("other.test", "/article"),
      goal: "tidal output",
      fetchOptions: filter({ domains: ["allowed.test"] }),
    });
    expect(result).toMatchObject({ ok: false, error: { code: "SOURCE_FILTERED" } });
    expect(web.requests.length).toBe(before);
    expect(reader.calls).toHaveLength(0);
  });
});
