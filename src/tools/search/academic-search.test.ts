/**
 * The `academic_search` tool through the gateway: fallback, structured failures, retries that
 * honour Retry-After, the cache, arXiv's rate policy, and the provider registry.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import type { FakeSearch } from "../../../test/fake-search/index.ts";
import { preloadAtomParser, useFakeSearch } from "../../../test/fake-search/provider-test-kit.ts";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { DEFAULT_RETRY_POLICY } from "../../core/retry.ts";
import { openSqliteStore } from "../../store/sqlite-store.ts";
import { PROVIDER_DEFAULTS, ToolGateway } from "../gateway.ts";
import type { SearchRequest } from "../types.ts";
import {
  ACADEMIC_PROVIDER_NAMES,
  academicBaseUrlsFromEnv,
  createAcademicProviders,
} from "./academic-providers.ts";
import type { AcademicProvider, AcademicResult } from "./academic-result.ts";
import { academicSearch } from "./academic-search.ts";

const NO_RETRY = { ...DEFAULT_RETRY_POLICY, maxRetries: 0 };

preloadAtomParser();

let fake: FakeSearch;
useFakeSearch((started) => {
  fake = started;
});
afterEach(() => {
  vi.useRealTimers();
});

const providers = (...names: string[]) =>
  createAcademicProviders({ openalexEmail: "me@example.org" }, names, {
    providerBaseUrls: { arxiv: fake.baseUrl("arxiv"), openalex: fake.baseUrl("openalex") },
  });

describe("academicSearch through the gateway", () => {
  it("answers with arXiv's papers as the academic_search tool, with tool events", async () => {
    const events: { type: string; tool?: string; provider?: string }[] = [];
    const gateway = new ToolGateway({ clock: instantClock(), emit: (e) => events.push(e as never) });
    const outcome = await academicSearch(
      { query: "attention", topK: 1 },
      { gateway, providers: providers("arxiv") },
    );
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.provider).toBe("arxiv");
    expect(outcome.value).toEqual([
      {
        title: "Attention Is All You Need",
        url: "https://arxiv.org/abs/1706.03762v7",
        snippet: "The dominant sequence transduction models are based on complex recurrent networks.",
        publishedAt: "2017-06-12T17:57:34.000Z",
        authors: ["Ashish Vaswani", "Noam Shazeer"],
        pdfUrl: "https://arxiv.org/pdf/1706.03762v7",
      },
    ]);
    expect(events.map((e) => [e.type, e.tool, e.provider])).toEqual([
      ["tool-start", "academic_search", "arxiv"],
      ["tool-end", "academic_search", "arxiv"],
    ]);
  });

  it("falls back to OpenAlex when arXiv fails; the answer names the provider that served it", async () => {
    const gateway = new ToolGateway({ clock: instantClock(), defaults: { retry: NO_RETRY, cacheTtlMs: 0 } });
    fake.enqueue("arxiv", { kind: "error", status: 500 });
    const outcome = await academicSearch(
      { query: "attention" },
      { gateway, providers: providers("arxiv", "openalex") },
    );
    expect(outcome.ok && outcome.provider).toBe("openalex");
    expect(fake.requestsFor("openalex")[0]?.query.mailto).toBe("me@example.org");
  });

  it("returns a structured failure, never a throw, when every provider fails", async () => {
    const gateway = new ToolGateway({ clock: instantClock(), defaults: { retry: NO_RETRY, cacheTtlMs: 0 } });
    fake.enqueue("arxiv", { kind: "malformed" });
    fake.enqueue("openalex", { kind: "malformed" });
    const outcome = await academicSearch(
      { query: "x" },
      { gateway, providers: providers("arxiv", "openalex") },
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toEqual({
      code: "PROVIDER_ERROR",
      message: expect.stringMatching(
        /^all providers failed \(arxiv: PROVIDER_ERROR; openalex: PROVIDER_ERROR\): openalex: the answer is not JSON$/,
      ),
      retryable: true,
    });
  });

  it("with no provider configured answers PROVIDER_NOT_CONFIGURED", async () => {
    const outcome = await academicSearch({ query: "x" }, { gateway: new ToolGateway(), providers: [] });
    expect(outcome).toMatchObject({ ok: false, error: { code: "PROVIDER_NOT_CONFIGURED" } });
  });

  it("retries arXiv's 429 after its Retry-After, and a 500 after at least three seconds", async () => {
    const clock = instantClock();
    const gateway = new ToolGateway({ clock, defaults: { cacheTtlMs: 0 }, random: () => 0 });
    fake.enqueue(
      "arxiv",
      { kind: "error", status: 429, headers: { "retry-after": "5" } },
      { kind: "error", status: 500 },
    );
    const outcome = await academicSearch({ query: "x" }, { gateway, providers: providers("arxiv") });
    expect(outcome.ok).toBe(true);
    expect(fake.requestsFor("arxiv")).toHaveLength(3);
    // random() = 0 is the shortest jittered delay: the second retry waits 2 × 4 s − 25%.
    expect(clock.sleeps).toEqual([5000, 6000]);
  });

  it("caches by query and endpoint: the same search twice asks arXiv once", async () => {
    const store = openSqliteStore({ home: ":memory:" });
    try {
      const gateway = new ToolGateway({ clock: instantClock(), cache: store.cache });
      const options = { gateway, providers: providers("arxiv") };
      await academicSearch({ query: "attention" }, options);
      const again = await academicSearch({ query: "attention" }, options);
      expect(again.ok && again.cached).toBe(true);
      expect(fake.requestsFor("arxiv")).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});

describe("arXiv's rate policy", () => {
  it("is one call at a time, one every three seconds, with retries waiting at least as long", () => {
    const policy = new ToolGateway().policyOf("arxiv");
    expect(policy.concurrency).toBe(1);
    expect(policy.ratePerSecond).toBeCloseTo(1 / 3);
    expect(policy.retry.baseDelayMs * (1 - policy.retry.jitter)).toBeGreaterThanOrEqual(3000);
    expect(PROVIDER_DEFAULTS.openalex?.ratePerSecond).toBe(10);
  });

  it("starts a second arXiv call only three seconds after the first", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 22, 12, 0, 0) });
    const started: number[] = [];
    const stub: AcademicProvider = {
      name: "arxiv",
      async search(request: SearchRequest): Promise<AcademicResult[]> {
        started.push(Date.now());
        return [{ title: request.query, url: "https://arxiv.org/abs/1", snippet: "", authors: [] }];
      },
    };
    const gateway = new ToolGateway({ defaults: { cacheTtlMs: 0 } });
    const t0 = Date.now();
    const calls = ["one", "two", "three"].map((query) =>
      academicSearch({ query }, { gateway, providers: [stub] }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((t) => t - t0)).toEqual([0]);
    await vi.advanceTimersByTimeAsync(2999);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started.map((t) => t - t0)).toEqual([0, 3000]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(started.map((t) => t - t0)).toEqual([0, 3000, 6000]);
    const outcomes = await Promise.all(calls);
    expect(outcomes.map((o) => o.ok && o.value[0]?.title)).toEqual(["one", "two", "three"]);
  });
});

describe("the academic provider registry", () => {
  it("builds the named providers in order, once each; an unknown name is INPUT_INVALID", () => {
    expect(
      createAcademicProviders({ academic: ["openalex", "arxiv", "openalex"] }).map((p) => p.name),
    ).toEqual(["openalex", "arxiv"]);
    expect(createAcademicProviders({}).length).toBe(0);
    expect(() => createAcademicProviders({}, ["scholar"])).toThrow(
      expect.objectContaining({ code: "INPUT_INVALID", message: expect.stringContaining("arxiv, openalex") }),
    );
    expect(ACADEMIC_PROVIDER_NAMES).toEqual(["arxiv", "openalex"]);
  });

  it("uses the public endpoints unless ARXIV_BASE_URL / OPENALEX_BASE_URL override them", () => {
    const [arxiv, openalex] = createAcademicProviders({}, ["arxiv", "openalex"]);
    expect([arxiv?.endpoint, openalex?.endpoint]).toEqual([
      "https://export.arxiv.org/api",
      "https://api.openalex.org",
    ]);
    expect(
      academicBaseUrlsFromEnv({ ARXIV_BASE_URL: " http://127.0.0.1:9/arxiv ", OPENALEX_BASE_URL: "" }),
    ).toEqual({ arxiv: "http://127.0.0.1:9/arxiv" });
    expect(() => academicBaseUrlsFromEnv({ OPENALEX_BASE_URL: "api.openalex.org" })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: expect.stringContaining("OPENALEX_BASE_URL"),
      }),
    );
  });
});
