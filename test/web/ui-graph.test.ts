/**
 * The web UI watching a graph run in chromium: the scripted loopback research world (fake
 * model, search and web servers) behind `dossier serve`'s server, a run started from the form,
 * its plan drawn as a DAG whose nodes reach `done`, and the report with its citations.
 * Skipped (or failed under CI=true) like the other browser tests when chromium is missing.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { defaultWebRoot, signInLink } from "../../src/server/web.ts";
import { DEFAULT_GRAPH_CALLS } from "../research/graph-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";

const CHROMIUM = process.env.DOSSIER_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const missing = !existsSync(CHROMIUM)
  ? `chromium not found at ${CHROMIUM} (install Debian's chromium package)`
  : defaultWebRoot() === null
    ? "the web UI is not built (run npm run build)"
    : null;
if (missing && process.env.CI) throw new Error(`web UI browser tests cannot run in CI: ${missing}`);
if (missing) console.warn(`\n[web UI e2e] SKIPPED: ${missing}\n`);

describe.skipIf(missing !== null)("web UI watching a graph run", { timeout: 180_000 }, () => {
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    world = await startResearchWorld({ latencyMs: 20, expectCalls: DEFAULT_GRAPH_CALLS });
    dossier = createDossier({
      env: { DOSSIER_HOME: world.home },
      cwd: world.home,
      config: { ...world.config } as never,
    });
    server = await startServer({ dossier, port: 0 });
    const { chromium } = await import("playwright-core");
    profile = mkdtempSync(join(tmpdir(), "dossier-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    context.setDefaultTimeout(90_000);
  }, 120_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await server?.close();
    await dossier?.close();
    await world?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it("draws the plan as a DAG whose nodes reach done, then the cited report", async () => {
    const errors: string[] = [];
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(signInLink(server.app.app, server.url)!);
    await page.getByLabel("Question").fill("How is topic adoption changing?");
    await page.getByLabel("Strategy").selectOption("graph");
    await page.getByRole("button", { name: "Start research" }).click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await page.getByRole("heading", { name: "Plan" }).waitFor();
    await page.getByTestId("run-status").getByText("completed").waitFor();
    const states = await page
      .locator("svg.dag g.node")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
    expect(states.length).toBeGreaterThan(1);
    expect(states.filter((s) => s === "done").length).toBeGreaterThan(0);
    expect(states.every((s) => s === "done" || s === "pruned" || s === "failed")).toBe(true);
    // A node shows its findings on click.
    await page.locator("svg.dag g.node[data-status=done]").first().click();
    await page.getByText("Status:").waitFor();
    await page.getByRole("heading", { name: "References" }).waitFor();
    const cite = page.locator("[data-testid=report] a.cite").first();
    await cite.hover();
    expect(await page.getByRole("tooltip").textContent()).toMatch(/Topic \d+/);
    expect(errors).toEqual([]);
  });
});
