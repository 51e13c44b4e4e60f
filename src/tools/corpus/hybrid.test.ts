import { appendFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { CorpusIndex } from "./corpus-index.ts";
import { createEmbeddingClient, type EmbeddingClient } from "./embeddings.ts";
import { indexDirectory } from "./ingest.ts";
import { localSearch } from "./local-search.ts";
import { writeCorpusFixture } from "./test-fixtures.ts";

let fake: FakeOpenAI;
let base: string;
let root: string;
let index: CorpusIndex;
let client: EmbeddingClient;

const inputsOf = (from: number) =>
  fake.requests.slice(from).map((r) => (r.body as { input: string[] }).input);

beforeEach(async () => {
  fake = await startFakeOpenAI({ embeddingDimensions: 256 });
  ({ base, root } = await writeCorpusFixture());
  index = CorpusIndex.open({ path: join(base, "corpus.db") });
  client = createEmbeddingClient({ baseUrl: fake.url, model: "fake-embed", apiKey: "k-test", batchSize: 4 });
});

afterEach(async () => {
  index.close();
  rmSync(base, { recursive: true, force: true });
  await fake.close();
});

const indexHybrid = (embeddings: EmbeddingClient = client) =>
  indexDirectory({ root, index, maxFileBytes: 10_000, embeddings, embedStep: 100 });

describe("hybrid retrieval against the fake OpenAI-compatible server", () => {
  it("embeds every chunk in batches with the OpenAI request format", async () => {
    const summary = await indexHybrid();
    expect(summary.embedded).toBe(14);
    expect(fake.requests).toHaveLength(4);
    for (const request of fake.requests) {
      expect(request.method).toBe("POST");
      expect(request.path).toBe("/v1/embeddings");
      expect(request.headers.authorization).toBe("Bearer k-test");
      expect((request.body as { model: string }).model).toBe("fake-embed");
    }
    const inputs = inputsOf(0);
    expect(inputs.map((i) => i.length)).toEqual([4, 4, 4, 2]);
    expect(inputs.flat()).toContain(
      "User Guide\nInstallation\nOn Linux\nUse the system package manager. Penguins welcome.",
    );
    expect(index.vectorModel()).toEqual({ model: "fake-embed", dims: 256 });
    expect(index.unembeddedCount()).toBe(0);
  });

  it("embeds the query once and fuses dense and BM25 rankings by RRF", async () => {
    await indexHybrid();
    const before = fake.requests.length;
    const hits = await localSearch({ index, query: "system package manager", topK: 3, embeddings: client });
    expect(inputsOf(before)).toEqual([["system package manager"]]);
    expect(hits[0]).toMatchObject({ path: "guide.md", anchor: "on-linux" });
    // first in both rankings: 1/(60+1) + 1/(60+1)
    expect(hits[0]!.score).toBe(1 / 61 + 1 / 61);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it("finds by dense retrieval what BM25 cannot match", async () => {
    await indexHybrid();
    const query = "photosynthetic conversion of light";
    expect((await localSearch({ index, query: "photosynthetic conversion" })).length).toBe(0);
    const hits = await localSearch({ index, query, topK: 3, embeddings: client });
    expect(hits.some((h) => h.path === "paper.pdf" && h.anchor === "page=1")).toBe(true);
  });

  it("makes no request when searching without embeddings", async () => {
    await indexHybrid();
    const before = fake.requests.length;
    const hits = await localSearch({ index, query: "system package manager" });
    expect(hits[0]).toMatchObject({ path: "guide.md", anchor: "on-linux" });
    expect(fake.requests.length).toBe(before);
  });

  it("embeds only the chunks of a changed file and drops vectors of removed chunks", async () => {
    await indexHybrid();
    const oldNotes = index.chunkIdsOf("notes.txt");
    appendFileSync(join(root, "notes.txt"), "\nAnother paragraph.\n");
    rmSync(join(root, "zh.md"));
    const before = fake.requests.length;
    const summary = await indexHybrid();
    expect(summary).toMatchObject({ indexed: 1, removed: 1, embedded: 1 });
    expect(inputsOf(before)).toEqual([[expect.stringContaining("Another paragraph.")]]);
    const live = new Set(
      ["guide.md", "notes.txt", "page.html", "paper.pdf"].flatMap((p) => index.chunkIdsOf(p)),
    );
    const nearest = index.nearest(new Float32Array(256).fill(1 / 16), 100);
    expect(nearest).toHaveLength(live.size);
    expect(nearest.every((n) => live.has(n.chunkId))).toBe(true);
    expect(oldNotes.some((id) => live.has(id))).toBe(false);
  });

  it("re-embeds everything for another model and refuses a query with the old one", async () => {
    await indexHybrid();
    const other = createEmbeddingClient({ baseUrl: fake.url, model: "other-embed", batchSize: 100 });
    const before = fake.requests.length;
    const summary = await indexHybrid(other);
    expect(summary.embedded).toBe(14);
    expect(inputsOf(before).flat()).toHaveLength(14);
    expect(index.vectorModel()).toEqual({ model: "other-embed", dims: 256 });
    await expect(localSearch({ index, query: "keeper", embeddings: client })).rejects.toMatchObject({
      code: "INPUT_INVALID",
    });
  });

  it("refuses a hybrid search of a corpus indexed without embeddings", async () => {
    await indexDirectory({ root, index, maxFileBytes: 10_000 });
    expect(fake.requests).toHaveLength(0);
    await expect(localSearch({ index, query: "keeper", embeddings: client })).rejects.toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringContaining("--hybrid"),
    });
  });
});
