/**
 * The web UI watching a graph run in chromium: the scripted loopback research world (fake
 * model, search and web servers) behind `dossier serve`'s server, a run started from the form,
 * its plan drawn as a DAG whose nodes reach `done`, the report section by section while it is
 * written (the editor's call is held back until the page shows every section written), the
 * report with its citations, and the trace's re-plan with the plan before and after.
 * Skipped (or failed under CI=true) like the other browser tests when chromium is missing.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { signInLink } from "../../src/server/web.ts";
import { DEFAULT_GRAPH_CALLS } from "../research/graph-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";
import { axeViolations, browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

describe.skipIf(missing !== null)("web UI watching a graph run", { timeout: 180_000 }, () => {
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let browser: TestBrowser;

  let releaseEditor: () => void = () => {};
  const editorHeld = new Promise<void>((resolve) => {
    releaseEditor = resolve;
  });

  beforeAll(async () => {
    world = await startResearchWorld({
      latencyMs: 20,
      expectCalls: DEFAULT_GRAPH_CALLS,
      // The coherence editor runs once every section is written: hold it (at most 60 s) so the
      // page can be seen with all sections written and the report not yet assembled.
      hold: async (request) => {
        const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
        const editor = messages.some(
          (m) => m.role === "system" && JSON.stringify(m.content).includes("editor of a research report"),
        );
        if (editor) await Promise.race([editorHeld, new Promise((r) => setTimeout(r, 60_000))]);
      },
    });
    dossier = createDossier({
      env: { DOSSIER_HOME: world.home },
      cwd: world.home,
      config: { ...world.config } as never,
    });
    server = await startServer({ dossier, port: 0 });
    browser = await launchBrowser({ timeoutMs: 90_000 });
  }, 120_000);

  afterAll(async () => {
    releaseEditor();
    await browser?.close();
    await server?.close();
    await dossier?.close();
    await world?.close();
  });

  it("draws the plan as a DAG whose nodes reach done, then the cited report", async () => {
    const errors: string[] = [];
    const page = watchErrors(await browser.context.newPage(), errors);
    await page.goto(signInLink(server.app.app, server.url)!);
    await page.getByLabel("Question").fill("How is topic adoption changing?");
    await page.getByLabel("Strategy").selectOption("graph");
    await page.getByRole("button", { name: "Start research" }).click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await page.getByRole("heading", { name: "Plan" }).waitFor();
    // The report appears section by section while it is written.
    const progress = page.getByTestId("report-progress");
    await progress.getByText(/\((\d+) of \1 written\)/).waitFor();
    const sections = await progress
      .locator("li")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
    expect(sections.length).toBeGreaterThan(1);
    expect(sections.every((s) => s === "written")).toBe(true);
    expect(await progress.getByText(/\d+ citations?/).count()).toBeGreaterThan(0);
    expect(await axeViolations(page, "report being written")).toEqual([]);
    releaseEditor();
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

    // The trace shows the re-plan with the plan before and after.
    await page.locator("details.timeline > summary").click();
    await page.getByLabel("Event type").selectOption("plan-update");
    await page.locator("[data-testid=timeline] button", { hasText: "re-plan" }).first().click();
    const replan = page.getByTestId("replan");
    await replan.getByRole("heading", { name: /^Re-plan at iteration \d+$/ }).waitFor();
    await replan.getByRole("heading", { name: "Added" }).waitFor();
    const marks = async (side: string) =>
      replan
        .getByRole("heading", { name: side, exact: true })
        .locator("xpath=following-sibling::ol[1]/li")
        .evaluateAll((els) =>
          els.map((e) => `${e.getAttribute("data-node")}:${e.getAttribute("data-mark")}`),
        );
    const after = await marks("After");
    const before = await marks("Before");
    expect(after.filter((m) => m.endsWith(":added")).length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(before.length);
    expect(before.some((m) => m.endsWith(":added"))).toBe(false);
    expect(await axeViolations(page, "re-plan detail")).toEqual([]);
    expect(errors).toEqual([]);
  });
});
