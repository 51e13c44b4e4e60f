/**
 * The web UI resuming a truly interrupted run: a `dossier research` process (minddr, against
 * the scripted loopback world) is killed with SIGKILL mid-way, so its run stays recorded as
 * `running` with a dead owner; the server marks it `interrupted` when it opens the store, the
 * runs list shows it so, and "Resume" takes it up to a completed, cited report.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { signInLink } from "../../src/server/web.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import { KILLED_MINDDR_WORLD, killedResearch } from "../research/killed-run.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";
import { browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

describe.skipIf(missing !== null)("web UI resuming an interrupted run", { timeout: 180_000 }, () => {
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let browser: TestBrowser;
  let runId: string;

  beforeAll(async () => {
    world = await startResearchWorld(KILLED_MINDDR_WORLD);
    const w = world;
    await killedResearch(w, {
      ready: () => w.model.requests.length >= 6,
      args: ["--format", "md,html,json"],
      maxWaitMs: 30_000,
    });
    const store = openSqliteStore({ home: world.home });
    const [run] = await store.runs.list();
    await store.close();
    expect(run).toMatchObject({ status: "running" });
    runId = run!.id;
    // Opening the store marks the run whose process is gone as interrupted.
    dossier = createDossier({
      env: { DOSSIER_HOME: world.home, DOSSIER_CONCURRENCY: "1" },
      cwd: world.home,
      config: { ...world.config } as never,
    });
    server = await startServer({ dossier, port: 0 });
    browser = await launchBrowser({ timeoutMs: 90_000 });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await dossier?.close();
    await world?.close();
  });

  it("lists the killed run as interrupted, resumes it with Resume and shows its cited report", async () => {
    const errors: string[] = [];
    const page = watchErrors(await browser.context.newPage(), errors);
    await page.goto(signInLink(server.app.app, server.url)!);
    await page.getByRole("heading", { name: "New research" }).waitFor();
    await page.getByRole("link", { name: "Runs" }).click();
    const row = page.locator(`tr[data-run="${runId}"]`);
    await row.locator(".badge", { hasText: "interrupted" }).waitFor();
    const before = (await dossier.runs.events(runId)).length;

    await row.getByRole("button", { name: /Resume/ }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}$`));
    await page.getByTestId("run-status").getByText("completed").waitFor();
    await page.getByRole("heading", { name: "References" }).waitFor();
    expect(await page.locator("[data-testid=report] a.cite").count()).toBeGreaterThan(0);
    // Evidence the resumed attempt replayed from the journal is listed once.
    const ids = await page
      .getByTestId("evidence")
      .locator("li")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-evidence")));
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    // The same run went on: its log continues after the first attempt's events.
    const events = await dossier.runs.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[before]).toMatchObject({ type: "run-resume", previousStatus: "interrupted" });
    expect(await dossier.runs.get(runId)).toMatchObject({ status: "completed" });
    await page.close();
    expect(errors).toEqual([]);
  });
});
