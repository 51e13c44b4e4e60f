/**
 * `dossier search` in-process against a loopback server that answers in each provider's format.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../test/cli-io.ts";
import {
  type FakeSearch,
  type FakeSearchProvider,
  type FakeSearchResult,
  startFakeSearch,
} from "../../../test/fake-search/index.ts";

const RESULTS: FakeSearchResult[] = [
  {
    title: "First <b>hit</b>",
    url: "https://one.example/",
    snippet: "One &amp; only.",
    publishedAt: "2024-01-15",
  },
  { title: "Second", url: "https://two.example/page", snippet: "Two." },
  { title: "Third", url: "https://three.example/", snippet: "Three." },
];

const KEYS = {
  tavily: "tvly-secret",
  exa: "exa-secret",
  brave: "brave-secret",
  serper: "serper-secret",
  jina: "jina-secret",
} as const;

/** The environment that points `provider` at the fake server. */
function providerEnv(provider: FakeSearchProvider, fake: FakeSearch): Record<string, string> {
  if (provider === "searxng") return { SEARXNG_URL: fake.baseUrl("searxng") };
  const upper = provider.toUpperCase();
  return { [`${upper}_API_KEY`]: KEYS[provider], [`${upper}_BASE_URL`]: fake.baseUrl(provider) };
}

/** How each provider reports the first result's date. */
const PUBLISHED: Record<FakeSearchProvider, string> = {
  tavily: "2024-01-15T00:00:00.000Z",
  exa: "2024-01-15T00:00:00.000Z",
  brave: "2024-01-15T00:00:00.000Z",
  serper: "2024-01-15",
  searxng: "2024-01-15T00:00:00.000Z",
  jina: "2024-01-15",
};

let tmp: string;
let fake: FakeSearch;

beforeEach(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-search-")));
  fake = await startFakeSearch({ results: RESULTS, keys: KEYS });
});

afterEach(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process with a minimal environment plus `env`. */
function dossier(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, {
    cwd: tmp,
    env: { HOME: tmp, DOSSIER_HOME: tmp, DOSSIER_ALLOW_PRIVATE_NETWORK: "1", ...env },
  });
}

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

describe("dossier search --json against each provider's format", () => {
  it.each(["searxng", "tavily", "exa", "brave", "serper", "jina"] as const)("%s", async (provider) => {
    const run = await dossier(
      ["search", "q", "--provider", provider, "--top-k", "2", "--json"],
      providerEnv(provider, fake),
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        title: "First hit",
        url: "https://one.example/",
        snippet: "One & only.",
        publishedAt: PUBLISHED[provider],
      },
      { title: "Second", url: "https://two.example/page", snippet: "Two." },
    ]);
    expect(fake.requests.map((r) => r.provider)).toEqual([provider]);
  });
});

describe("dossier search configuration", () => {
  it("a provider without its key exits 2 with one line naming the variable, and calls nothing", async () => {
    const run = await dossier(["search", "q", "--provider", "tavily"], {
      TAVILY_BASE_URL: fake.baseUrl("tavily"),
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toEqual([
      "dossier: error [PROVIDER_NOT_CONFIGURED]: search provider not configured: tavily needs TAVILY_API_KEY",
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it("without any provider it says to set DOSSIER_SEARCH", async () => {
    const run = await dossier(["search", "q"]);
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^dossier: error \[PROVIDER_NOT_CONFIGURED\]: no web search provider configured: set DOSSIER_SEARCH/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("uses DOSSIER_SEARCH in order, warning about providers without their key", async () => {
    const run = await dossier(["search", "q", "--json"], {
      DOSSIER_SEARCH: "tavily,searxng",
      SEARXNG_URL: fake.baseUrl("searxng"),
    });
    expect(run.code).toBe(0);
    expect(lines(run.stderr)).toEqual([
      "dossier: warning: search provider tavily skipped: set TAVILY_API_KEY",
    ]);
    expect((JSON.parse(run.stdout) as unknown[]).length).toBe(3);
    expect(fake.requests.map((r) => r.provider)).toEqual(["searxng"]);
  });

  it("rejects an unknown provider and a bad --top-k as usage errors", async () => {
    const unknown = await dossier(["search", "q", "--provider", "google"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('[INPUT_INVALID]: unknown provider "google"');
    const topK = await dossier(
      ["search", "q", "--provider", "searxng", "--top-k", "0"],
      providerEnv("searxng", fake),
    );
    expect(topK.code).toBe(2);
    expect(topK.stderr).toContain("[INPUT_INVALID]: --top-k must be a whole number from 1 to 50");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("dossier search output and failures", () => {
  it("prints a numbered list without --json", async () => {
    const run = await dossier(
      ["search", "q", "--provider", "serper", "--top-k", "2"],
      providerEnv("serper", fake),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "1. First hit",
        "   https://one.example/",
        "   One & only.",
        "   published 2024-01-15",
        "",
        "2. Second",
        "   https://two.example/page",
        "   Two.",
        "",
      ].join("\n"),
    );
  });

  it("passes --time-range and --language to the provider", async () => {
    const run = await dossier(
      ["search", "q", "--provider", "brave", "--time-range", "month", "--language", "fr", "--json"],
      providerEnv("brave", fake),
    );
    expect(run.code).toBe(0);
    expect(fake.requests[0]!.query).toEqual({ q: "q", count: "5", freshness: "pm", search_lang: "fr" });
  });

  it("a failed search exits 1 with the error's code and message on one line", async () => {
    fake.enqueue("jina", { kind: "error", status: 404, body: { message: "no such index" } });
    const run = await dossier(["search", "q", "--provider", "jina", "--json"], providerEnv("jina", fake));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toEqual([
      'dossier: error [PROVIDER_ERROR]: jina: HTTP 404 — {"message":"no such index"}',
    ]);
  });

  it("a rejected key exits 2 with PROVIDER_NOT_CONFIGURED", async () => {
    const run = await dossier(["search", "q", "--provider", "exa"], {
      ...providerEnv("exa", fake),
      EXA_API_KEY: "wrong",
    });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^dossier: error \[PROVIDER_NOT_CONFIGURED\]: exa: HTTP 401 — check the API key/,
    );
    expect(run.stderr).not.toContain("wrong");
  });
});
