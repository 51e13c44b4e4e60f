import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instantClock } from "../../../test/scripted/clocks.ts";
import type { EventInput } from "../../core/events.ts";
import { openSqliteStore } from "../../store/sqlite-store.ts";
import { ToolGateway } from "../gateway.ts";
import { CorpusIndex } from "./corpus-index.ts";
import { localSearchTool } from "./local-search.ts";

let index: CorpusIndex;
let store: ReturnType<typeof openSqliteStore>;
let events: EventInput[];
let gateway: ToolGateway;

beforeEach(() => {
  index = CorpusIndex.open({ path: ":memory:" });
  index.write([
    {
      path: "notes/tides.md",
      kind: "markdown",
      title: "Tides",
      contentHash: "h",
      size: 1,
      mtimeMs: 0,
      chunks: [
        {
          text: "Spring tides follow the new moon.",
          anchor: "spring-tides",
          headingPath: ["Tides", "Spring Tides"],
        },
        { text: "Neap tides are weaker.", anchor: "neap-tides", headingPath: ["Tides", "Neap Tides"] },
      ],
    },
  ]);
  store = openSqliteStore({ home: ":memory:" });
  events = [];
  gateway = new ToolGateway({ cache: store.cache, clock: instantClock(), emit: (e) => events.push(e) });
});

afterEach(() => {
  index.close();
  store.close();
});

describe("localSearchTool", () => {
  it("runs through the gateway as local_search / corpus and returns located passages", async () => {
    const search = localSearchTool(gateway, { index, corpus: "notes" });
    const result = await search("spring moon", { topK: 1 });
    expect(result).toMatchObject({ ok: true, cached: false, provider: "corpus", callId: "C1" });
    if (!result.ok) return;
    expect(result.value).toEqual([
      {
        path: "notes/tides.md",
        anchor: "spring-tides",
        title: "Tides",
        headingPath: "Tides > Spring Tides",
        text: "Spring tides follow the new moon.",
        score: expect.any(Number),
        chunkId: 1,
      },
    ]);
    expect(events).toEqual([
      {
        type: "tool-start",
        callId: "C1",
        tool: "local_search",
        provider: "corpus",
        args: { query: "spring moon", topK: 1, corpus: "notes", hybrid: false },
      },
      expect.objectContaining({
        type: "tool-end",
        tool: "local_search",
        provider: "corpus",
        ok: true,
        resultCount: 1,
      }),
    ]);
  });

  it("is never served from the cache (the corpus changes between calls)", async () => {
    const search = localSearchTool(gateway, { index });
    await search("tides");
    const again = await search("tides");
    expect(again).toMatchObject({ ok: true, cached: false });
    expect(gateway.metrics().tools).toEqual([
      expect.objectContaining({ name: "local_search", calls: 2, cacheHits: 0 }),
    ]);
  });

  it("answers a bad request with a structured failure, never an exception", async () => {
    const search = localSearchTool(gateway, { index });
    expect(await search("tides", { topK: 0 })).toMatchObject({
      ok: false,
      error: { code: "INPUT_INVALID", retryable: false },
    });
    expect(await search("   ")).toMatchObject({ ok: false, error: { code: "INPUT_INVALID" } });
  });

  it("uses the given BM25 parameters", async () => {
    const plain = await localSearchTool(gateway, { index })("tides");
    const flat = await localSearchTool(gateway, { index, bm25: { k1: 0.9, b: 0 } })("tides");
    expect(plain.ok && flat.ok).toBe(true);
    if (plain.ok && flat.ok) expect(plain.value[0]!.score).not.toBe(flat.value[0]!.score);
  });
});
