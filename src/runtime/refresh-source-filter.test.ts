/**
 * A refresh keeps the source filter of the run it refreshes (each part given replaces that part):
 * in the loopback research world whose searches put a page on a denied host, neither the run nor
 * its refresh ever returns or requests it — though the refresh asks the searches again, and a
 * page no search of the run returned would be a new page it reads. The CLI's flags override.
 */

import { afterEach, describe, expect, it } from "vitest";
import { perSourceSections, REFRESH_PARENT } from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, searchPages, startResearchWorld } from "../../test/research/world.ts";
import { dossierInWorld } from "../../test/research/world-cli.ts";
import { isDossierError } from "../core/errors.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { refresh } from "./refresh.ts";
import { inheritedSourceFilter } from "./refresh-source-filter.ts";

describe("the filter of a run made from another", () => {
  const parent = {
    sourceFilter: { domains: ["a.org", "b.org"], excludeDomains: ["x.a.org"], since: "2024-01-01" },
  };

  it("is the earlier run's, each part given replacing that part; an empty list lifts one", () => {
    expect(inheritedSourceFilter(parent, undefined)).toEqual(parent.sourceFilter);
    expect(inheritedSourceFilter(parent, { since: "2025-02-01" })).toEqual({
      ...parent.sourceFilter,
      since: "2025-02-01",
    });
    expect(inheritedSourceFilter(parent, { domains: [], excludeDomains: ["Bücher.de"] })).toEqual({
      domains: [],
      excludeDomains: ["xn--bcher-kva.de"],
      since: "2024-01-01",
    });
    expect(inheritedSourceFilter({}, { domains: ["c.org"] })).toEqual({ domains: ["c.org"] });
    expect(inheritedSourceFilter({}, undefined)).toBeUndefined();
  });

  it("refuses a bad filter, and a domain both allowed by the earlier run and excluded now", () => {
    const codeOf = (f: () => unknown) => {
      try {
        f();
        return "returned";
      } catch (error) {
        return isDossierError(error) ? `${error.code}: ${error.message}` : String(error);
      }
    };
    expect(codeOf(() => inheritedSourceFilter(parent, { domains: ["bad host"] }))).toMatch(
      /^INPUT_INVALID: sourceFilter\.domains\.0: "bad host" is not a host name/,
    );
    expect(codeOf(() => inheritedSourceFilter(parent, { excludeDomains: ["b.org"] }, "run r1"))).toBe(
      'INPUT_INVALID: sourceFilter (with the filter of run r1).excludeDomains: "b.org" is both allowed (domains) and excluded (excludeDomains)',
    );
  });
});

/** The last result of every search is on denied.test (a host no test may resolve). */
const lastResultDenied = (pageUrl: string, query: string) => {
  const n = Number(/\/page\/(\d+)$/.exec(pageUrl)?.[1]);
  return n === searchPages(query).at(-1) ? pageUrl.replace("127.0.0.1", "denied.test") : pageUrl;
};

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
});

describe("a refresh keeps its run's source filter", () => {
  it("never returns or requests a denied page, though it asks the searches again", async () => {
    world = await startResearchWorld({
      subtasks: 4,
      override: perSourceSections,
      expectCalls: REFRESH_PARENT,
      resultUrl: lastResultDenied,
    });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const denied = `denied.test:${world.web.port}`;
    const parent = await dossier.research("How is topic adoption changing?", {
      strategy: "minddr",
      sourceFilter: { excludeDomains: ["denied.test"] },
    }).done;
    expect(parent.status).toBe("completed");
    expect(JSON.stringify(await dossier.runs.events(parent.runId))).not.toContain(denied);

    world.script.expectCalls(REFRESH_PARENT); // not one call more
    const searched = world.search.requests.length;
    const v2 = await refresh(dossier, parent.runId);
    expect(v2).toMatchObject({ status: "completed", version: 2, sectionsChanged: [] });
    expect((await dossier.runs.get(v2.runId)).options.sourceFilter).toEqual({
      excludeDomains: ["denied.test"],
    });
    // The searches were asked again, with the filter; none returned the denied page, so it is
    // no new page and is never read (its host is never even resolved).
    const again = world.search.requests.slice(searched).map((r) => String(r.query.q));
    expect(again.length).toBeGreaterThan(0);
    for (const q of again) expect(q).toMatch(/ -site:denied\.test$/);
    expect(JSON.stringify(await dossier.runs.events(v2.runId))).not.toContain(denied);
    await dossier.close();
    dossier = undefined;

    // The CLI's flags replace a part of it; the rest is kept.
    const v3 = await dossierInWorld(["refresh", v2.runId, "--since", "2000-01-01", "--json"], world);
    expect(v3.stderr).toBe("");
    expect(v3.code).toBe(0);
    const { runId } = JSON.parse(v3.stdout) as { runId: string };
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    expect((await dossier.runs.get(runId)).options.sourceFilter).toEqual({
      excludeDomains: ["denied.test"],
      since: "2000-01-01",
    });
    expect(JSON.stringify(await dossier.runs.events(runId))).not.toContain(denied);
    // A bad flag is refused before anything runs.
    const bad = await dossierInWorld(["refresh", runId, "--exclude-domains", "bad host"], world);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dossier: error \[INPUT_INVALID\]: --exclude-domains: "bad host"/);
  });
});
