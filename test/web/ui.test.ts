/**
 * End-to-end tests of the web UI in a real browser: playwright-core driving Debian's
 * chromium (never a downloaded browser) against the server `dossier serve` runs, with a
 * project whose corpus `notes` is indexed (the offline strategy writes a cited report
 * without a model) and a `hold` strategy that waits until it is cancelled.
 *
 * Without chromium or the built UI (`npm run build`) the tests fail under CI=true and are
 * skipped with a notice otherwise.
 */

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { createProject, type Project } from "../../src/server/test-fixtures.ts";
import { signInLink } from "../../src/server/web.ts";
import { axeViolations, browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

describe.skipIf(missing !== null)("web UI in chromium", { timeout: 120_000 }, () => {
  let project: Project;
  let server: RunningServer;
  let browser: TestBrowser;
  const errors: string[] = [];

  beforeAll(async () => {
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0 });
    // A fresh, empty profile for every run of the suite.
    browser = await launchBrowser({ viewport: { width: 1100, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await project?.close();
  });

  const newPage = async () => watchErrors(await browser.context.newPage(), errors);
  const signIn = async (page: Page) => {
    await page.goto(server.url);
    const form = page.getByRole("heading", { name: "New research" });
    const signInPage = page.getByRole("heading", { name: "Sign in to Dossier" });
    await form.or(signInPage).waitFor();
    if (await form.isVisible()) return;
    await page.getByLabel("Token", { exact: true }).fill(server.token!);
    await page.getByRole("button", { name: "Sign in" }).click();
    await form.waitFor();
  };
  const startFromForm = async (
    page: Page,
    question: string,
    strategy: string,
    options: Record<string, string> = {},
  ) => {
    await page.goto(server.url);
    await page.getByLabel("Question").fill(question);
    await page.getByLabel("Strategy").selectOption(strategy);
    await page.getByLabel("Corpus").selectOption("notes");
    for (const [label, value] of Object.entries(options)) await page.getByLabel(label).fill(value);
    await page.getByRole("button", { name: "Start research" }).click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    return decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  };

  it("shows signed-out visitors the sign-in page only, and signs in with the token", async () => {
    const page = await newPage();
    await page.goto(server.url);
    await page.getByRole("heading", { name: "Sign in to Dossier" }).waitFor();
    expect(await page.getByRole("heading", { name: "New research" }).count()).toBe(0);
    await page.getByLabel("Token", { exact: true }).fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That token is not valid.").waitFor();
    await signIn(page);
    // The token is in no URL and no storage; the session cookie is HttpOnly and SameSite=Strict.
    expect(page.url()).not.toContain(server.token!);
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toContain(server.token!);
    const cookies = await browser.context.cookies(server.url);
    expect(cookies).toMatchObject([{ name: "dossier_session", httpOnly: true, sameSite: "Strict" }]);
    expect(cookies[0]!.value).not.toContain(server.token!);
    // The page is served under a strict policy.
    const response = await page.goto(`${server.url}/runs`);
    const csp = response!.headers()["content-security-policy"]!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    await page.close();
  });

  it("signs in with the one-time link, which lands on a URL without it and works once", async () => {
    const context = browser.context;
    const cookies = await context.cookies(server.url);
    await context.clearCookies();
    const page = await newPage();
    const link = signInLink(server.app.app, server.url)!;
    await page.goto(link);
    await page.getByRole("heading", { name: "New research" }).waitFor();
    expect(page.url()).toBe(`${server.url}/`);
    // Closed before signing out: the signed-in page's own requests (strategies, corpora, the
    // estimate) must not meet a cleared cookie and log 401s.
    await page.close();
    await context.clearCookies();
    const again = await newPage();
    await again.goto(link);
    await again.getByText("already used or has expired").waitFor();
    await context.addCookies(cookies);
    await again.close();
  });

  it("starts a run from the form and shows the report with citations whose excerpts show on hover", async () => {
    const page = await newPage();
    await signIn(page);
    await page.getByLabel("Question").fill("How do heat pumps perform in cold climates?");
    await page.getByLabel("Strategy").selectOption("offline");
    await page.getByRole("button", { name: "Estimate" }).click();
    await page.getByText(/^Estimate \(offline\)/).waitFor();
    const runId = await startFromForm(page, "How do heat pumps perform in cold climates?", "offline");
    await page.getByTestId("run-status").getByText("completed").waitFor();
    await page.getByRole("heading", { name: "References" }).waitFor();
    const cites = page.locator("[data-testid=report] a.cite");
    await cites.first().waitFor();
    expect(await cites.count()).toBeGreaterThan(0);
    // Each citation resolves to an entry of the References list.
    for (const href of await cites.evaluateAll((els) => els.map((a) => a.getAttribute("href")))) {
      expect(href).toMatch(/^#ref-\d+$/);
      expect(await page.locator(href!).count()).toBe(1);
    }
    await cites.first().hover();
    const tip = page.getByRole("tooltip");
    await tip.waitFor();
    expect(await tip.textContent()).toMatch(/heat pump|peak demand|defrost/i);
    // Keyboard focus shows it too.
    await page.mouse.move(0, 0);
    await cites.first().focus();
    await tip.waitFor();
    // Downloads in every format the run wrote, and in PDF and Word rendered from its bundle.
    for (const f of ["md", "html", "json", "pdf", "docx"]) {
      expect(await page.locator(`a[href="/v1/runs/${runId}/report/${f}"]`).count()).toBe(1);
    }
    const word = await page.request.get(`${server.url}/v1/runs/${runId}/report/docx`);
    expect(word.status()).toBe(200);
    expect((await word.body()).subarray(0, 2).toString()).toBe("PK");
    const pdf = await page.request.get(`${server.url}/v1/runs/${runId}/report/pdf`);
    expect(pdf.headers()["content-type"]).toBe("application/pdf");
    expect((await pdf.body()).subarray(0, 5).toString()).toBe("%PDF-");
    expect((await page.getByTestId("evidence").locator("li").count()) > 0).toBe(true);
    await page.close();
  });

  it("cancels a run, resumes the stream after a reload without losing or repeating events, and resumes from the list", async () => {
    const page = await newPage();
    await signIn(page);
    // The strategy's own options are labelled fields, checked before they are sent.
    await page.getByLabel("Question").fill("Hold this run until it is cancelled");
    await page.getByLabel("Strategy").selectOption("hold");
    const phases = page.getByTestId("strategy-options").getByLabel("Phases");
    expect(await phases.getAttribute("min")).toBe("0");
    await phases.fill("-1");
    await page.getByRole("button", { name: "Estimate" }).click();
    await page.getByRole("alert").getByText("Phases: expected at least 0").waitFor();
    const runId = await startFromForm(page, "Hold this run until it is cancelled", "hold", { Phases: "4" });
    await page.getByTestId("phase").getByText("step 4").waitFor();
    expect((await project.dossier.runs.get(runId)).options).toMatchObject({ strategyOptions: { phases: 4 } });
    await page.reload();
    await page.getByTestId("phase").getByText("step 4").waitFor();
    const seqs = async () =>
      page
        .locator("[data-testid=timeline] li")
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seq"))));
    const logged = (await project.dossier.runs.events(runId)).map((e) => e.seq);
    expect(await seqs()).toEqual(logged);

    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByTestId("run-status").getByText("cancelled").waitFor();
    const after = await seqs();
    expect(new Set(after).size).toBe(after.length);
    expect(after).toEqual((await project.dossier.runs.events(runId)).map((e) => e.seq));

    // The runs list shows it with Resume; resuming takes it up again.
    await page.getByRole("link", { name: "Runs" }).click();
    const row = page.locator(`tr[data-run="${runId}"]`);
    await row.locator(".badge", { hasText: "cancelled" }).waitFor();
    await row.getByRole("button", { name: /Resume/ }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}$`));
    await page.getByRole("button", { name: "Cancel" }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByTestId("run-status").getByText("cancelled").waitFor();
    await page.close();
  });

  it("has no serious or critical axe-core violation on any page, in light and dark", async () => {
    const audit = axeViolations;
    const problems: string[] = [];
    const context = browser.context;
    for (const scheme of ["light", "dark"] as const) {
      const page = await newPage();
      await page.emulateMedia({ colorScheme: scheme });
      const cookies = await context.cookies(server.url);
      await context.clearCookies();
      await page.goto(server.url);
      await page.getByRole("heading", { name: "Sign in to Dossier" }).waitFor();
      problems.push(...(await audit(page, `${scheme} sign-in`)));
      await context.addCookies(cookies);
      await signIn(page);
      problems.push(...(await audit(page, `${scheme} new research`)));
      await page.getByLabel("Strategy").selectOption("offline");
      await page.getByTestId("strategy-options").waitFor();
      problems.push(...(await audit(page, `${scheme} new research with strategy options`)));
      await page.goto(`${server.url}/runs`);
      await page.locator("table.runs").waitFor();
      problems.push(...(await audit(page, `${scheme} runs`)));
      // The oldest run is the offline one with a report (started by an earlier test).
      await page.locator("table.runs a").last().click();
      await page.getByRole("heading", { name: "References" }).waitFor();
      problems.push(...(await audit(page, `${scheme} run and report`)));
      await page.close();
    }
    expect(problems).toEqual([]);
  });

  it("is usable at 375 px and logged no console errors", async () => {
    const page = await newPage();
    await page.setViewportSize({ width: 375, height: 800 });
    await signIn(page);
    // Nothing is wider than the screen (wide tables and the plan scroll inside their own box).
    const overflowing = () => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    expect(await overflowing()).toBeLessThanOrEqual(0);
    await page.goto(`${server.url}/runs`);
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    expect(await overflowing()).toBeLessThanOrEqual(0);
    await page.close();
    expect(errors).toEqual([]);
  });
});
