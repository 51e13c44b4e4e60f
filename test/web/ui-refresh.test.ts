/**
 * Living reports in the web UI, in chromium against a real loopback server whose Dossier runs
 * on the scripted research world: after a cited page changed, Refresh under version 1's report
 * starts version 2 (POST /v1/runs/{id}/refresh) and shows it; its page lists the versions and
 * shows what changed (the section rewritten, the claims removed and added, the page that
 * changed) and the Markdown redline, as text; version 1's page lists the versions too and shows
 * no diff, and the runs list names the refresh's version and parent.
 */

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { splitSections } from "../../src/runtime/refresh-sections.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { signInLink } from "../../src/server/web.ts";
import {
  pagesOfSection,
  perSourceSections,
  REFRESH_PARENT,
  sectionsCiting,
} from "../research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";
import { axeViolations, browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

const PARENT = REFRESH_PARENT;

describe.skipIf(missing !== null)("report versions in the web UI", { timeout: 180_000 }, () => {
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let browser: TestBrowser;
  let page: Page;
  let v1: string;
  let v2: string;
  /** The page only the Comparison section cites, and that section's text in version 1. */
  let changed: number;
  let comparison: string;
  const errors: string[] = [];

  beforeAll(async () => {
    world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
    dossier = createDossier({
      env: { DOSSIER_HOME: world.home },
      cwd: world.home,
      config: { ...world.config } as never,
    });
    const parent = await dossier.research("How is topic adoption changing?", {
      strategy: "minddr",
      formats: ["md", "html", "json"],
    }).done;
    expect(parent.status).toBe("completed");
    v1 = parent.runId;
    const sections = splitSections(parent.report!.body);
    const pages = pagesOfSection(parent.report!, sections, "Comparison");
    expect(pages).toHaveLength(1);
    changed = pages[0]!;
    expect(sectionsCiting(parent.report!, sections, changed)).toEqual(["Comparison"]);
    comparison = sections.find((s) => s.title === "Comparison")!.text;
    server = await startServer({ dossier, port: 0 });
    browser = await launchBrowser({ timeoutMs: 90_000 });
    page = watchErrors(await browser.context.newPage(), errors);
    await page.goto(signInLink(server.app.app, server.url)!);
    await page.getByRole("heading", { name: "New research" }).waitFor();
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await dossier?.close();
    await world?.close();
  });

  it("refreshes version 1 with Refresh, then shows version 2's versions, the sections and claims it changed and its redline as text", async () => {
    await page.goto(`${server.url}/runs/${v1}`);
    await page.getByRole("heading", { name: "References" }).waitFor();
    // The Comparison's page changes: the one section citing it is written again, the others are kept.
    world.changePages([changed]);
    world.script.expectCalls({ ...PARENT, section: 5 });
    await page.getByTestId("versions").getByRole("button", { name: "Refresh" }).click();
    await page.waitForURL((url) => /\/runs\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(v1));
    v2 = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    const record = await dossier.runs.get(v2);
    expect(record.strategy).toBe("refresh");
    expect(record.options.strategyOptions).toMatchObject({ refreshOf: v1, version: 2 });
    await page.getByTestId("run-status").getByText("completed").waitFor();
    await page.getByRole("heading", { name: "References" }).waitFor();
    const versions = page.getByTestId("versions");
    const list = versions.getByTestId("version-list").locator("li");
    await list.first().waitFor();
    expect(await list.evaluateAll((els) => els.map((e) => e.getAttribute("data-run")))).toEqual([v1, v2]);
    expect(await list.nth(1).getAttribute("aria-current")).toBe("page");
    expect(await list.first().getByRole("link").getAttribute("href")).toBe(`/runs/${v1}`);

    const diff = versions.getByTestId("diff");
    await diff.waitFor();
    expect(await diff.getByTestId("sections-changed").textContent()).toBe(
      "1 section(s) rewritten: Comparison.",
    );
    const section = diff.locator(".diff-section");
    expect(await section.count()).toBe(1);
    expect(await section.locator("h4").textContent()).toBe("Comparison");
    const removed = await section.locator("del").allTextContents();
    const added = await section.locator("ins").allTextContents();
    expect(removed.length).toBeGreaterThan(0);
    for (const claim of removed) expect(comparison).toContain(claim);
    expect(added).toEqual([
      `Reviewers of topic ${changed} now report that durability concerns were settled by field tests.`,
    ]);
    expect(await diff.getByTestId("diff-pages").locator("li").allTextContents()).toEqual([
      expect.stringMatching(new RegExp(`^changed: http://127\\.0\\.0\\.1:\\d+/page/${changed}$`)),
    ]);

    // The redline, opened: its rewritten section with struck-through and added claims.
    await diff.getByText("Redline", { exact: true }).click();
    const redline = diff.getByTestId("redline");
    await redline.getByRole("heading", { name: "Comparison (rewritten)" }).waitFor();
    const struck = await redline.locator("del").allTextContents();
    expect(struck.length).toBeGreaterThan(0);
    for (const claim of struck) expect(comparison).toContain(claim);
    expect(await redline.locator("ins").allTextContents()).toEqual(added);
    expect(await redline.locator("script, img, iframe, [onerror], [style]").count()).toBe(0);
    expect(await axeViolations(page, "refresh run with its diff")).toEqual([]);
  });

  it("lists the versions on version 1's page, with no diff and no Refresh (version 2 is the latest)", async () => {
    await page.goto(`${server.url}/runs/${v1}`);
    await page.getByRole("heading", { name: "References" }).waitFor();
    const list = page.getByTestId("version-list").locator("li");
    await list.nth(1).waitFor();
    expect(await list.first().getAttribute("aria-current")).toBe("page");
    expect(await list.allTextContents()).toEqual([
      expect.stringMatching(/^Version 1 completed .* \(this run\)$/),
      expect.stringMatching(/^Version 2 completed /),
    ]);
    expect(await page.getByTestId("diff").count()).toBe(0);
    // Version 1 is no longer the latest: no Refresh button, a link to version 2 instead.
    const newer = page.getByTestId("newer-version");
    expect(await newer.textContent()).toBe("Version 2 is the latest: refresh that one.");
    expect(await newer.getByRole("link").getAttribute("href")).toBe(`/runs/${v2}`);
    expect(await page.getByTestId("versions").getByRole("button", { name: "Refresh" }).count()).toBe(0);
    // The runs list names the refresh's version and the run it refreshes.
    await page.getByRole("link", { name: "Runs" }).click();
    await page.locator(`tr[data-run="${v2}"]`).getByText(`version 2, refresh of ${v1}`).waitFor();
    expect(errors).toEqual([]);
  });
});
