/**
 * The new-research form in chromium reaches every option of a strategy: smtl's protocol is a
 * choice, its systemPrompt (an object) a JSON field; text that is not JSON is named in the
 * browser, JSON the strategy's schema refuses is refused by the server, and the chosen options
 * are what the form sends.
 */

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { createProject, type Project } from "../../src/server/test-fixtures.ts";
import { browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

describe.skipIf(missing !== null)("new-research form: strategy options", { timeout: 120_000 }, () => {
  let project: Project;
  let server: RunningServer;
  let browser: TestBrowser;
  const errors: string[] = [];

  beforeAll(async () => {
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0 });
    browser = await launchBrowser({ viewport: { width: 1100, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await project?.close();
  });

  const signIn = async (page: Page) => {
    await page.goto(server.url);
    await page.getByLabel("Token", { exact: true }).fill(server.token!);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "New research" }).waitFor();
  };

  it("offers smtl's protocol as a choice and its systemPrompt as JSON, checked in the browser and by the server", async () => {
    const page = await watchErrors(await browser.context.newPage(), errors);
    await signIn(page);
    await page.getByLabel("Question").fill("Which topic grew by 11 percent in 2025?");
    await page.getByLabel("Strategy").selectOption("smtl");
    const options = page.getByTestId("strategy-options");
    const protocol = options.getByLabel("Protocol");
    expect(await protocol.locator("option").allTextContents()).toEqual(["Default (json)", "json", "native"]);
    const prompt = options.getByLabel("System prompt");
    expect(await prompt.evaluate((e) => e.tagName)).toBe("TEXTAREA");
    expect(await options.locator("#opt-systemPrompt-hint").textContent()).toContain(
      "JSON: a JSON object {searcher: text}",
    );
    const estimate = page.getByRole("button", { name: "Estimate" });

    // Not JSON: named in the browser, nothing sent.
    await prompt.fill("prompts/searcher.txt");
    let sent = 0;
    page.on("request", (r) => {
      if (r.url().endsWith("/v1/estimate")) sent++;
    });
    await estimate.click();
    await page
      .getByRole("alert")
      .getByText("System prompt: expected JSON (a JSON object {searcher: text})")
      .waitFor();
    expect(sent).toBe(0);

    // JSON the schema refuses: the server's 400 names the option and what it allows.
    await prompt.fill('{"searcher": 3}');
    await estimate.click();
    await page
      .getByRole("alert")
      .getByText(/strategy smtl: option systemPrompt must be a JSON object \{searcher: text\}/)
      .waitFor();

    // The chosen protocol and the JSON option are what the form sends.
    await protocol.selectOption("native");
    await prompt.fill('{"searcher": "prompts/searcher.txt"}');
    const request = page.waitForRequest((r) => r.url().endsWith("/v1/estimate"));
    await estimate.click();
    expect((await request).postDataJSON().strategyOptions).toEqual({
      protocol: "native",
      systemPrompt: { searcher: "prompts/searcher.txt" },
    });
    await page.close();
    // The refusals above are answers the form shows, not console errors of the page.
    expect(errors.filter((e) => !/Failed to load resource: .* status of (400|422)/.test(e))).toEqual([]);
  });
});
