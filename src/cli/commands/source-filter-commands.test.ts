/**
 * `--domains`, `--exclude-domains` and `--since` on `dossier search`, `fetch` and `ask`, in-process
 * against loopback servers that count what they receive: results outside the filter are dropped
 * and the provider gets its operators; a URL or redirect outside it fails with SOURCE_FILTERED and
 * is never requested; the configured filter is the default; an ask searches and reads within it;
 * bad flags are refused before any request.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../test/cli-io.ts";
import { type FakeSearch, startFakeSearch } from "../../../test/fake-search/index.ts";
import { type FakeWeb, startFakeWeb } from "../../../test/fake-web/index.ts";
import { type ResearchWorld, searchPages, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";

let web: FakeWeb;
let fake: FakeSearch;
let cwd: string;
let world: ResearchWorld | undefined;
beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(() => web.close());
beforeEach(async () => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-filter-cli-")));
  fake = await startFakeSearch({
    results: [
      { title: "Allowed", url: "https://www.allowed.test/a", snippet: "Tidal power output rose." },
      { title: "Denied", url: "https://denied.test/b", snippet: "Tidal turbines were installed." },
      { title: "Other", url: "https://other.test/c", snippet: "Tidal range is large here." },
    ],
  });
});
afterEach(async () => {
  await fake.close();
  await world?.close();
  world = undefined;
  fs.rmSync(cwd, { recursive: true, force: true });
});

function dossier(args: string[]): Promise<CliOutcome> {
  return runCliInProcess(args, {
    cwd,
    env: {
      HOME: cwd,
      DOSSIER_HOME: join(cwd, ".dossier"),
      DOSSIER_SEARCH: "searxng",
      SEARXNG_URL: fake.baseUrl("searxng"),
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    },
  });
}

const urlsOf = (out: CliOutcome) => (JSON.parse(out.stdout) as { url: string }[]).map((r) => r.url);
const hostsAsked = (from: number) => web.requests.slice(from).map((r) => r.host.replace(/:\d+$/, ""));

describe("dossier search with a source filter", () => {
  it("drops results outside the filter and gives the provider its operators", async () => {
    const denied = await dossier(["search", "tidal power", "--exclude-domains", "denied.test", "--json"]);
    expect(denied.stderr).toBe("");
    expect(urlsOf(denied)).toEqual(["https://www.allowed.test/a", "https://other.test/c"]);
    expect(fake.requestsFor("searxng")[0]!.query.q).toBe("tidal power -site:denied.test");
    const allowed = await dossier(["search", "tidal power", "--domains", "allowed.test", "--json"]);
    expect(urlsOf(allowed)).toEqual(["https://www.allowed.test/a"]);
  });

  it("uses the configured filter by default; flags replace it", async () => {
    fs.writeFileSync(
      join(cwd, "dossier.config.json"),
      JSON.stringify({ sourceFilter: { excludeDomains: ["other.test"] } }),
    );
    expect(urlsOf(await dossier(["search", "tidal power", "--json"]))).toEqual([
      "https://www.allowed.test/a",
      "https://denied.test/b",
    ]);
    expect(
      urlsOf(await dossier(["search", "tidal power", "--exclude-domains", "denied.test", "--json"])),
    ).toEqual(["https://www.allowed.test/a", "https://other.test/c"]);
  });

  it("refuses bad or misplaced filter flags before any request", async () => {
    const bad = await dossier(["search", "tidal power", "--domains", "https://x.org/path"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dossier: error \[INPUT_INVALID\]: --domains: "https:\/\/x.org\/path"/);
    const local = await dossier(["search", "tidal power", "--provider", "local", "--since", "2024-01-01"]);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("not --provider local");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("dossier fetch with a source filter", () => {
  it("refuses a URL outside the allow list without requesting it", async () => {
    const before = web.requests.length;
    const refused = await dossier(["fetch", web.url("/article"), "--domains", "allowed.test"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      `dossier: error [SOURCE_FILTERED]: ${web.url("/article")}: refused by the run's source filter (127.0.0.1 is not under an allowed domain (allowed.test))\n`,
    );
    expect(web.requests.length).toBe(before);
  });

  it("refuses a redirect to a denied host before following it; the configured filter is the default", async () => {
    fs.writeFileSync(
      join(cwd, "dossier.config.json"),
      JSON.stringify({ sourceFilter: { excludeDomains: ["localhost"] } }),
    );
    const before = web.requests.length;
    const to = `http://localhost:${web.port}/article`;
    const refused = await dossier(["fetch", web.url(`/redirect?to=${encodeURIComponent(to)}`)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("[SOURCE_FILTERED]");
    expect(refused.stderr).toContain("localhost is under the excluded domain localhost");
    expect(hostsAsked(before)).toEqual(["127.0.0.1"]);
    // Another list given replaces the configured one.
    const read = await dossier(["fetch", web.url("/article"), "--exclude-domains", "denied.test", "--json"]);
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).title).toBeTruthy();
  });
});

/** The first result of every search is on denied.test (a host no test may resolve). */
const firstResultDenied = (pageUrl: string, query: string) => {
  const n = Number(/\/page\/(\d+)$/.exec(pageUrl)?.[1]);
  return n === searchPages(query)[0] ? pageUrl.replace("127.0.0.1", "denied.test") : pageUrl;
};

describe("dossier ask with a source filter", () => {
  it("searches and reads within it: the first result, on a denied host, is never read", async () => {
    world = await startResearchWorld({
      expectCalls: { "smtl-plan": 1, "smtl-step": 2, reader: 1 },
      resultUrl: firstResultDenied,
    });
    const pagesBefore = world.pageAnswers.length;
    const run = await dossierInWorld(
      ["ask", "Which topic grew by 11 percent in 2025?", "--exclude-domains", "denied.test", "--json"],
      world,
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { answer: string };
    expect(out.answer).toMatch(/^Topic 3 \[1\]/);
    expect(world.pageAnswers.slice(pagesBefore).map((a) => a.page)).toEqual([3]);
    expect(run.stdout).not.toContain("denied.test");
    const queries = world.search.requestsFor("searxng").map((r) => String(r.query.q));
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q).toMatch(/ -site:denied\.test$/);
  });
});
