/**
 * What a refresh reads of the searches behind a report: each query once as first asked (its number
 * of results and time range), every result URL a search returned whether or not the run kept it
 * as a source, and the same along the report's chain of refreshes (the first run's searches first).
 */

import { describe, expect, it } from "vitest";
import type { DossierEvent } from "../core/events.ts";
import type { RunRecord } from "../core/run.ts";
import { normalizeUrl } from "../core/url.ts";
import { refreshOf } from "./refresh-parent.ts";
import { searchesOf, searchHistory, seenUrlsOf } from "./refresh-searches.ts";

let seq = 0;
const ev = (runId: string, e: Record<string, unknown>) =>
  ({ runId, seq: ++seq, ts: "2026-01-01T00:00:00.000Z", ...e }) as unknown as DossierEvent;
const search = (runId: string, callId: string, args: Record<string, unknown>, urls: string[], ok = true) => [
  ev(runId, { type: "tool-start", callId, tool: "web_search", provider: "searxng", args }),
  ev(runId, {
    type: "tool-end",
    callId,
    tool: "web_search",
    provider: "searxng",
    ok,
    cached: false,
    latencyMs: 1,
    ...(ok ? { urls } : {}),
  }),
];
const source = (runId: string, url: string) =>
  ev(runId, {
    type: "source-add",
    source: { id: "S1", kind: "web", url, title: url, fetchedAt: "2026-01-01T00:00:00.000Z" },
  });

describe("searchesOf", () => {
  it("gives each query once, as first asked", () => {
    const events = [
      ...search("r", "C1", { query: "solar costs", topK: 3, timeRange: "year" }, []),
      ...search("r", "C2", { query: "solar costs", topK: 9 }, []),
      ...search("r", "C3", { query: "wind", topK: 0, timeRange: "decade" }, []),
      ...search("r", "C4", { query: "  " }, []),
      ev("r", { type: "tool-start", callId: "C5", tool: "fetch_page", args: { url: "https://a.org" } }),
    ];
    expect(searchesOf(events)).toEqual([
      { query: "solar costs", topK: 3, timeRange: "year" },
      { query: "wind" }, // a bad topK or time range is left to the default
    ]);
  });
});

describe("seenUrlsOf", () => {
  it("holds every result URL a search returned, kept or not, every source and checked page, as dedup keys", () => {
    const events = [
      ...search("r", "C1", { query: "q" }, ["https://a.org/1", "https://www.b.org/2/?utm_source=x"]),
      ...search("r", "C2", { query: "q2" }, ["https://failed.org/"], false),
      source("r", "https://c.org/3"),
      ev("r", { type: "report-diff", pages: [{ url: "https://d.org/4", state: "vanished" }] }),
    ];
    expect([...seenUrlsOf(events)].sort()).toEqual(
      ["https://a.org/1", "https://b.org/2", "https://c.org/3", "https://d.org/4"].map(normalizeUrl).sort(),
    );
  });
});

describe("searchHistory", () => {
  const record = (id: string, of?: string): RunRecord =>
    ({
      id,
      query: "q",
      status: "completed",
      strategy: of ? "refresh" : "minddr",
      options: of ? { strategyOptions: { refreshOf: of, version: 2 } } : {},
      createdAt: "2026-01-01T00:00:00.000Z",
    }) as unknown as RunRecord;

  it("follows the chain of refreshes back to the first run: its searches first, every URL seen", async () => {
    const runs = new Map<string, { record: RunRecord; events: DossierEvent[] }>([
      [
        "v1",
        {
          record: record("v1"),
          events: search("v1", "C1", { query: "first", topK: 3 }, ["https://a.org/1"]),
        },
      ],
      [
        "v2",
        {
          record: record("v2", "v1"),
          events: search("v2", "C1", { query: "first", topK: 5 }, ["https://b.org/2"]),
        },
      ],
    ]);
    const api = {
      get: async (id: string) => runs.get(id)!.record,
      events: async (id: string) => runs.get(id)!.events,
    };
    const v3 = record("v3", "v2");
    const own = search("v3", "C1", { query: "third" }, ["https://c.org/3"]);
    const history = await searchHistory(api, v3, own, refreshOf);
    expect(history.searches).toEqual([{ query: "first", topK: 3 }, { query: "third" }]);
    expect([...history.seen].sort()).toEqual(
      ["https://a.org/1", "https://b.org/2", "https://c.org/3"].map(normalizeUrl).sort(),
    );
  });

  it("stops at a run it cannot read and at a cycle", async () => {
    const looped = record("a", "b");
    const api = {
      get: async (id: string) => {
        if (id === "b") return record("b", "a");
        throw new Error("gone");
      },
      events: async (id: string) => search(id, "C1", { query: `q-${id}` }, []),
    };
    const history = await searchHistory(api, looped, search("a", "C1", { query: "q-a" }, []), refreshOf);
    expect(history.searches.map((s) => s.query)).toEqual(["q-b", "q-a"]);
    const lost = await searchHistory(api, record("x", "missing"), [], refreshOf);
    expect(lost.searches).toEqual([]);
  });
});
