/**
 * The follow-up box of the web UI in chromium, against a real loopback server whose Dossier
 * runs on the scripted research world: under a finished run's report, a question asked about
 * it shows its progress (the follow-up's own run, listed while its model call is held), then
 * the answer cited with the report's numbers linked to its References and the searches made;
 * the follow-up is a child run naming its parent. A question the run's evidence answers makes
 * no search; one it does not searches once, and the new source gets the next number.
 */

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FOLLOW_UP_MARKER } from "../../src/runtime/ask-about-strategy.ts";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { signInLink } from "../../src/server/web.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";
import { axeViolations, browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

const PARENT = { "smtl-plan": 1, "smtl-step": 2, reader: 1 } as const;

describe.skipIf(missing !== null)("follow-up questions in the web UI", { timeout: 180_000 }, () => {
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let browser: TestBrowser;
  let parentId: string;
  let page: Page;
  const errors: string[] = [];
  // While set, the follow-up writer's model calls whose messages `held` matches wait for it (at most 60 s).
  let gate: Promise<void> | null = null;
  let held: (messages: string) => boolean = () => true;
  const closeGate = (when: (messages: string) => boolean) => {
    let open!: () => void;
    held = when;
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    return () => {
      gate = null;
      open();
    };
  };

  beforeAll(async () => {
    world = await startResearchWorld({
      expectCalls: PARENT,
      hold: async (request) => {
        const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
        const followUp = messages.some(
          (m) => m.role === "system" && JSON.stringify(m.content).includes(FOLLOW_UP_MARKER),
        );
        if (followUp && gate && held(JSON.stringify(messages)))
          await Promise.race([gate, new Promise((r) => setTimeout(r, 60_000))]);
      },
    });
    dossier = createDossier({
      env: { DOSSIER_HOME: world.home },
      cwd: world.home,
      config: { ...world.config } as never,
    });
    const parent = await dossier.ask("Which topic grew by 11 percent in 2025?", {
      formats: ["md", "html", "json"],
    });
    expect(parent.status).toBe("completed");
    parentId = parent.runId;
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

  const ask = async (question: string) => {
    await page.getByLabel("Follow-up question").fill(question);
    await page.getByRole("button", { name: "Ask", exact: true }).click();
  };

  it("answers from the run's evidence with the report's numbers, shows progress, makes no search and lists the child run", async () => {
    await page.goto(`${server.url}/runs/${parentId}`);
    await page.getByRole("heading", { name: "References" }).waitFor();
    const box = page.getByTestId("follow-up");
    await box.getByRole("heading", { name: "Ask a follow-up" }).waitFor();
    const searchesBefore = world.search.requests.length;
    world.script.expectCalls({ ...PARENT, "follow-up": 1 });

    const open = closeGate(() => true);
    await ask("And topic 2?");
    // While the writer's call is held: progress, and the follow-up's own run, already listed.
    const progress = box.getByTestId("follow-up-progress");
    await progress.getByRole("link").waitFor();
    expect(await progress.getAttribute("role")).toBe("status");
    const childId = (await progress.getByRole("link").textContent())!;
    expect(await box.getByRole("button", { name: "Ask", exact: true }).isDisabled()).toBe(true);
    const child = await dossier.runs.get(childId);
    expect(child).toMatchObject({ strategy: "follow-up", status: "running" });
    expect(child.options).toMatchObject({ strategyOptions: { about: parentId } });
    open();

    const answer = box.getByTestId("follow-up-answer");
    await answer.waitFor();
    await progress.waitFor({ state: "detached" });
    expect(await answer.locator(".answer-text").textContent()).toBe(
      "Topic 2 is covered by the evidence [1].",
    );
    // The report's own number for page 2, linked to its References entry.
    const page2 = (await page.locator("#ref-1").textContent())!;
    expect(page2).toMatch(/\/page\/2\b/);
    expect(
      await answer.locator(".answer-text a.cite").evaluateAll((as) => as.map((a) => a.getAttribute("href"))),
    ).toEqual(["#ref-1"]);
    const refs = answer.getByTestId("follow-up-citations").locator("li");
    expect(await refs.count()).toBe(1);
    expect(await refs.first().getAttribute("data-number")).toBe("1");
    expect(await refs.first().locator('a[href="#ref-1"]').count()).toBe(1);
    expect(await refs.first().locator('a[href$="/page/2"]').count()).toBe(1);
    expect(await answer.getByTestId("follow-up-searches").textContent()).toBe(
      "No search: answered from this run's evidence.",
    );
    expect(world.search.requests.length).toBe(searchesBefore);
    expect((await dossier.runs.events(childId)).some((e) => e.type === "tool-start")).toBe(false);
    // The follow-up is listed as a child run of this one; its page names its parent.
    const listed = box.getByTestId("follow-up-runs").locator(`li[data-run="${childId}"]`);
    await listed.waitFor();
    expect(await listed.getByRole("link").textContent()).toBe("And topic 2?");
    expect(await axeViolations(page, "run with a follow-up answer")).toEqual([]);
    await listed.getByRole("link").click();
    await page.waitForURL(new RegExp(`/runs/${childId}$`));
    const of = page.getByTestId("follow-up-of");
    await of.waitFor();
    expect(await of.getByRole("link").getAttribute("href")).toBe(`/runs/${parentId}`);
    await page.getByTestId("run-status").getByText("completed").waitFor();
  });

  it("searches when the run's evidence does not answer, shows the search, and gives the new source the next number", async () => {
    await page.goto(`${server.url}/runs/${parentId}`);
    await page.getByRole("heading", { name: "References" }).waitFor();
    const box = page.getByTestId("follow-up");
    const searchesBefore = world.search.requests.length;
    // The run's evidence has no passage on topic 15: the writer asks for a search, then answers.
    world.script.expectCalls({ ...PARENT, "follow-up": 3 });
    // The writer's second call (it sees the new page) is held: the search shows as progress.
    const open = closeGate((messages) => messages.includes("/page/15"));
    await ask("And topic 15?");
    const progress = box.getByTestId("follow-up-progress");
    await progress.getByText("searching: topic 14").waitFor();
    open();
    const answer = box.getByTestId("follow-up-answer");
    await answer.waitFor();
    expect(await answer.locator(".answer-text").textContent()).toBe(
      "Topic 15 is covered by the evidence [2].",
    );
    // Number 2 is not the report's: it links to the new source's own address.
    const href = await answer.locator(".answer-text a.cite").getAttribute("href");
    expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/page\/15$/);
    expect(await page.locator("#ref-2").count()).toBe(0);
    const item = answer.getByTestId("follow-up-citations").locator('li[data-number="2"]');
    expect(await item.textContent()).toContain("(new source)");
    expect(await answer.getByTestId("follow-up-searches").textContent()).toMatch(
      /^Searches: “topic 14” \(\d+ results\)$/,
    );
    expect(world.search.requests.length).toBe(searchesBefore + 1);
    const children = box.getByTestId("follow-up-runs").locator("li");
    expect(await children.count()).toBe(2);
    // The runs list names each follow-up's parent.
    const childIds = await children.evaluateAll((els) => els.map((e) => e.getAttribute("data-run")!));
    await page.getByRole("link", { name: "Runs" }).click();
    for (const id of childIds)
      await page.locator(`tr[data-run="${id}"]`).getByText(`follow-up of ${parentId}`).waitFor();
    expect(await page.getByText(`follow-up of ${parentId}`).count()).toBe(2);
    expect(errors).toEqual([]);
  });
});
