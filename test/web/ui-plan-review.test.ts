/**
 * Plan review in the web UI, end to end in chromium against the server `dossier serve` runs,
 * with minddr over the scripted loopback research world: the form starts a run with "Review the
 * plan before research"; the run page shows the planner's subtasks as an editable plan (its
 * text, markup included, only ever text) with the deadline; one subtask is removed, one added
 * and moved up with the keyboard; "Save edits & run" answers; the page follows the run going on
 * to its report; and the plan the run executed — from its events and the API — is exactly the
 * edited one.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/core/events.ts";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { signInLink } from "../../src/server/web.ts";
import { json } from "../research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";
import { axeViolations, browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";

const missing = browserMissing();

/** A subtask title as a model might write it: markup that must stay text. */
const MARKUP = 'Aspect 3 <img src="x" onerror="document.title=\'pwned\'"><b>bold</b>';

describe.skipIf(missing !== null)("web UI plan review", { timeout: 180_000 }, () => {
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let browser: TestBrowser;

  beforeAll(async () => {
    world = await startResearchWorld({
      subtasks: 3,
      expectCalls: {
        planner: 1,
        "search-step": 3,
        reader: 3,
        "sub-report": 3,
        outline: 1,
        section: 4,
        coherence: 1,
      },
      override: (role) =>
        role === "planner"
          ? json({
              intent: "Cover the main aspects with evidence.",
              title: "Topic adoption",
              subtasks: [1, 2, 3].map((n) => ({
                title: n === 3 ? MARKUP : `Aspect ${n}`,
                goal: `Find evidence about aspect ${n} of the question`,
                queries: [`aspect ${n} evidence`],
              })),
            })
          : undefined,
    });
    dossier = createDossier({
      env: { DOSSIER_HOME: world.home },
      cwd: world.home,
      config: { ...world.config } as never,
    });
    server = await startServer({ dossier, port: 0 });
    browser = await launchBrowser({ viewport: { width: 1100, height: 900 }, timeoutMs: 90_000 });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await dossier?.close();
    await world?.close();
  });

  it("starts with review, edits the plan (remove, add, reorder), approves it, and runs exactly the edited plan", async () => {
    const errors: string[] = [];
    const page = watchErrors(await browser.context.newPage(), errors);
    await page.goto(signInLink(server.app.app, server.url)!);
    await page.getByRole("heading", { name: "New research" }).waitFor();
    await page.getByLabel("Question").fill("How is topic adoption changing?");
    await page.getByLabel("Strategy").selectOption("minddr");
    await page.getByLabel("Review the plan before research").check();
    const created = page.waitForRequest((r) => r.url().endsWith("/v1/runs") && r.method() === "POST");
    await page.getByRole("button", { name: "Start research" }).click();
    expect((await created).postDataJSON()).toMatchObject({ strategy: "minddr", reviewPlan: true });
    await page.waitForURL(/\/runs\/[^/]+$/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

    // The run stops after its plan; the page shows it for review, with its deadline.
    await page.getByTestId("run-status").getByText("awaiting-review").waitFor();
    const panel = page.getByTestId("plan-review");
    await panel.getByRole("heading", { name: "Review the plan" }).waitFor();
    const review = await dossier.runs.plan(runId);
    expect(review).toMatchObject({ stage: "pending", status: "awaiting-review" });
    const deadline = panel.getByTestId("review-deadline").locator("time");
    expect(await deadline.getAttribute("datetime")).toBe(review!.deadline);
    const titles = () =>
      panel
        .locator(".pr-items > li input[type=text]")
        .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(await titles()).toEqual(["Aspect 1", "Aspect 2", MARKUP]);
    // The model's markup is the field's text: no element came of it.
    expect(await panel.locator("img, b").count()).toBe(0);
    expect(await page.getByLabel("Report title").inputValue()).toBe("Topic adoption");
    expect(await panel.getByText("queries: aspect 1 evidence").count()).toBe(1);
    const approve = panel.getByRole("button", { name: "Approve", exact: true });
    const save = panel.getByRole("button", { name: "Save edits & run" });
    expect(await approve.isEnabled()).toBe(true);
    expect(await save.isDisabled()).toBe(true);
    expect(await axeViolations(page, "plan review")).toEqual([]);

    // Remove subtask 2; add one; move it up with the keyboard alone.
    await panel.getByRole("button", { name: "Remove subtask 2" }).click();
    await panel.getByRole("button", { name: "Add subtask" }).click();
    const added = page.getByLabel("Subtask 3", { exact: true });
    // The new row's text field has the focus.
    expect(await added.evaluate((e) => e === document.activeElement)).toBe(true);
    await page.keyboard.type("Aspect 7 costs");
    await page.getByLabel("Subtask 3 description").fill("Find evidence about the costs of aspect 7");
    await panel.getByRole("button", { name: "Move subtask 3 up" }).focus();
    await page.keyboard.press("Enter");
    expect(await titles()).toEqual(["Aspect 1", "Aspect 7 costs", MARKUP]);
    // The moved row's button keeps the focus: Enter again moves it on.
    expect(
      await panel
        .getByRole("button", { name: "Move subtask 2 up" })
        .evaluate((e) => e === document.activeElement),
    ).toBe(true);
    // An edited plan is not approved as proposed by mistake.
    expect(await approve.isDisabled()).toBe(true);
    // An empty item cannot be sent.
    await panel.getByRole("button", { name: "Add subtask" }).click();
    await panel.getByText("Item 4 has no text.").waitFor();
    expect(await save.isDisabled()).toBe(true);
    await panel.getByRole("button", { name: "Remove subtask 4" }).click();
    expect(await save.isEnabled()).toBe(true);

    const answered = page.waitForResponse(
      (r) => r.url().endsWith(`/v1/runs/${runId}/plan`) && r.request().method() === "POST",
    );
    await save.click();
    const answer = await answered;
    expect(answer.status()).toBe(202);
    expect(answer.request().postDataJSON()).toEqual({
      action: "edit",
      plan: {
        title: "Topic adoption",
        items: [
          { id: "T-1", title: "Aspect 1" },
          { title: "Aspect 7 costs", description: "Find evidence about the costs of aspect 7" },
          { id: "T-3", title: MARKUP },
        ],
      },
    });

    // The page follows the run going on, live, to its report.
    await page.getByTestId("run-status").getByText("completed").waitFor();
    await page.getByRole("heading", { name: "References" }).waitFor();
    expect(await page.getByTestId("plan-review").count()).toBe(0);
    const summary = page.getByTestId("plan-reviewed");
    await summary.getByText("Plan edited and approved").waitFor();
    // The kept subtasks keep their order: the added one went between them.
    await summary.getByText("1 added, 1 removed", { exact: false }).waitFor();
    expect(await summary.getByText("reordered").count()).toBe(0);
    const executed = ["Aspect 1", "Aspect 7 costs", MARKUP];
    expect(await summary.getByTestId("reviewed-plan").locator("li").allTextContents()).toEqual(executed);

    // The plan executed is exactly the edited one: the API's review and the run's events.
    const after = await dossier.runs.plan(runId);
    expect(after).toMatchObject({ stage: "edited", status: "completed" });
    expect(after!.plan.items.map((i) => i.title)).toEqual(executed);
    const events = await dossier.runs.events(runId);
    const reviewed = events.filter((e): e is EventOf<"plan-reviewed"> => e.type === "plan-reviewed");
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]).toMatchObject({
      action: "edit",
      changes: { added: ["new-1"], removed: ["T-2"], reworded: [], reordered: false },
    });
    const resumedAt = events.findIndex((e) => e.type === "run-resume");
    expect(resumedAt).toBeGreaterThan(events.indexOf(reviewed[0]!));
    const searched = events
      .slice(resumedAt)
      .filter((e): e is EventOf<"node-start"> => e.type === "node-start" && e.nodeType === "search");
    expect(searched.map((e) => e.title)).toEqual(executed);
    expect(await page.title()).not.toBe("pwned");
    await page.close();
    expect(errors).toEqual([]);
  });
});
