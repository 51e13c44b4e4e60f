/**
 * `dossier search --provider arxiv|openalex` in-process against a loopback server answering in
 * arXiv's Atom format and OpenAlex's JSON.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../test/cli-io.ts";
import { type FakeSearch, type FakeSearchResult, startFakeSearch } from "../../../test/fake-search/index.ts";

const PAPERS: FakeSearchResult[] = [
  {
    title: "Sparse &amp; dense retrieval",
    url: "https://arxiv.org/abs/2401.00001v1",
    snippet: "We compare sparse and dense retrieval.",
    publishedAt: "2024-01-02T10:00:00Z",
    authors: ["Ada Lovelace", "Alan Turing"],
    doi: "10.1234/sdr",
    pdfUrl: "https://arxiv.org/pdf/2401.00001v1",
  },
  { title: "Second paper", url: "https://arxiv.org/abs/2401.00002v1", snippet: "Two.", authors: ["Solo"] },
];

// The Atom parser (jsdom) loads on first use; load it before the timed tests on a busy machine.
beforeAll(async () => {
  await import("jsdom");
}, 60_000);

let tmp: string;
let fake: FakeSearch;

beforeEach(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-academic-")));
  fake = await startFakeSearch({ results: PAPERS });
});

afterEach(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function dossier(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, {
    cwd: tmp,
    env: {
      HOME: tmp,
      DOSSIER_HOME: tmp,
      ARXIV_BASE_URL: fake.baseUrl("arxiv"),
      OPENALEX_BASE_URL: fake.baseUrl("openalex"),
      ...env,
    },
  });
}

describe("dossier search --provider arxiv|openalex", () => {
  it("arxiv --json prints the papers with authors, DOI and PDF, asking the overridden endpoint", async () => {
    const run = await dossier([
      "search",
      "sparse retrieval",
      "--provider",
      "arxiv",
      "--top-k",
      "2",
      "--json",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        title: "Sparse & dense retrieval",
        url: "https://arxiv.org/abs/2401.00001v1",
        snippet: "We compare sparse and dense retrieval.",
        publishedAt: "2024-01-02T10:00:00.000Z",
        authors: ["Ada Lovelace", "Alan Turing"],
        doi: "10.1234/sdr",
        pdfUrl: "https://arxiv.org/pdf/2401.00001v1",
      },
      {
        title: "Second paper",
        url: "https://arxiv.org/abs/2401.00002v1",
        snippet: "Two.",
        authors: ["Solo"],
        pdfUrl: "https://arxiv.org/pdf/2401.00002v1",
      },
    ]);
    expect(fake.requests.map((r) => [r.provider, r.query.search_query, r.query.max_results])).toEqual([
      ["arxiv", "all:sparse AND all:retrieval", "2"],
    ]);
  });

  it("openalex prints a numbered list and joins the polite pool with OPENALEX_EMAIL", async () => {
    const run = await dossier(["search", "sparse retrieval", "--provider", "openalex", "--top-k", "1"], {
      OPENALEX_EMAIL: "me@example.org",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "1. Sparse & dense retrieval",
        "   https://arxiv.org/abs/2401.00001v1",
        "   Ada Lovelace, Alan Turing",
        "   published 2024-01-02",
        "   We compare sparse and dense retrieval.",
        "",
      ].join("\n"),
    );
    expect(fake.requestsFor("openalex")[0]?.query).toMatchObject({
      search: "sparse retrieval",
      "per-page": "1",
      mailto: "me@example.org",
    });
  });

  it("a query arXiv refuses exits 1 with arXiv's reason on one line", async () => {
    fake.enqueue("arxiv", { kind: "error", status: 400 });
    const run = await dossier(["search", "q", "--provider", "arxiv"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "dossier: error [PROVIDER_ERROR]: arxiv: the API refused the query (fake-search: scripted error 400)\n",
    );
  });

  it("a bad base URL or email is a configuration error naming the variable", async () => {
    const url = await dossier(["search", "q", "--provider", "arxiv"], { ARXIV_BASE_URL: "export.arxiv.org" });
    expect(url.code).toBe(2);
    expect(url.stderr).toContain("invalid ARXIV_BASE_URL");
    const email = await dossier(["search", "q", "--provider", "openalex"], { OPENALEX_EMAIL: "nobody" });
    expect(email.code).toBe(2);
    expect(email.stderr).toContain("OPENALEX_EMAIL");
    expect(fake.requests).toHaveLength(0);
  });

  it("DOSSIER_ACADEMIC is read into the configuration", async () => {
    const run = await dossier(["config", "--json"], { DOSSIER_ACADEMIC: "OpenAlex, arxiv" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"academic"');
    expect(run.stdout).toMatch(/"openalex",\s*"arxiv"/);
  });
});
