/**
 * GET /v1/runs/{id}/diff/{md,json}: a refresh run's redline and JSON diff, read from the files
 * its report-diff event names; a run that is no refresh is a 404 and an unknown format a 400.
 * The refresh runs in the loopback research world (strict scripted model).
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  pagesOfSection,
  perSourceSections,
  REFRESH_PARENT,
  sectionsCiting,
} from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { createDossier, type Dossier } from "../runtime/dossier.ts";
import { refresh } from "../runtime/refresh.ts";
import { splitSections } from "../runtime/refresh-sections.ts";
import { type RunningServer, startServer } from "./listen.ts";

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  await dossier?.close();
  await world?.close();
  server = dossier = world = undefined;
});

const PARENT = REFRESH_PARENT;

describe("GET /v1/runs/{id}/diff/{format}", () => {
  it("serves a refresh's JSON diff and Markdown redline; a run that is no refresh has none", async () => {
    world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
    dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
    const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
    expect(parent.status).toBe("completed");
    // The page the Comparison section cites, and no other section does.
    const sections = splitSections(parent.report!.body);
    const pages = pagesOfSection(parent.report!, sections, "Comparison");
    expect(pages).toHaveLength(1);
    expect(sectionsCiting(parent.report!, sections, pages[0]!)).toEqual(["Comparison"]);
    world.changePages(pages);
    world.script.expectCalls({ ...PARENT, section: 5 });
    const v2 = await refresh(dossier, parent.runId);
    expect(v2.sectionsChanged).toEqual(["Comparison"]);
    server = await startServer({ dossier, port: 0 });
    const get = (path: string) =>
      fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${server!.token}` } });

    const json = await get(`/v1/runs/${v2.runId}/diff/json`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await json.json()).toMatchObject({
      format: "dossier-report-diff",
      runId: v2.runId,
      refreshOf: parent.runId,
      version: 2,
      sectionsChanged: ["Comparison"],
    });
    // A unique prefix of the run id works as everywhere else.
    const md = await get(`/v1/runs/${v2.runId.slice(0, -1)}/diff/md`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const redline = await md.text();
    expect(redline).toContain("## Comparison (rewritten)");
    // The old claim struck through, the new one added, the changed page named.
    expect(redline).toMatch(/^- ~~[^~\n]+~~$/m);
    expect(redline).toMatch(/^- \*\*[^*\n]+\*\*$/m);
    expect(redline).toContain(`- changed: <${world.web.url(`/page/${pages[0]}`)}>`);

    const none = await get(`/v1/runs/${parent.runId}/diff/md`);
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({
      error: { code: "NOT_FOUND", message: expect.stringMatching(/no diff/) },
    });
    expect((await get(`/v1/runs/no-such-run/diff/md`)).status).toBe(404);
    const bad = await get(`/v1/runs/${v2.runId}/diff/html`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { message: expect.stringContaining("expected md or json") },
    });
  });
});
