/**
 * The claim check in the web UI's report view, in chromium against a real loopback server: a
 * report whose claims were judged supported, partly supported, unsupported and unchecked shows a
 * mark of its own for each verdict, the verdict, reason and deciding passage span on hover and
 * on keyboard focus, and the shares; claim text, reasons and spans carrying markup, scripts and
 * `javascript:` URLs stay text (in the UI and in the HTML report itself).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { createProject, type Project } from "../../src/server/test-fixtures.ts";
import { signInLink } from "../../src/server/web.ts";
import { axeViolations, browserMissing, launchBrowser, type TestBrowser, watchErrors } from "./browser.ts";
import { CLAIMS, claimsStrategy, HOSTILE_PASSAGE } from "./claims-strategy.ts";

const missing = browserMissing();

describe.skipIf(missing !== null)("claim marks in the web UI", { timeout: 120_000 }, () => {
  let project: Project;
  let server: RunningServer;
  let browser: TestBrowser;
  let runId: string;

  beforeAll(async () => {
    project = await createProject({ strategies: [claimsStrategy as never] });
    // verify off: the run keeps the verdicts the strategy's report carries (a judge's stand-in).
    const result = await project.dossier.research("Do heat pumps cut emissions?", {
      strategy: "claims",
      corpus: "notes",
      verify: "off",
      formats: ["md", "html", "json"],
    }).done;
    expect(result.record.status).toBe("completed");
    runId = result.runId;
    server = await startServer({ dossier: project.dossier, port: 0 });
    browser = await launchBrowser({ viewport: { width: 1100, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await project?.close();
  });

  it("marks each verdict its own way, shows the deciding span on hover and focus, and keeps untrusted text as text", async () => {
    const errors: string[] = [];
    const dialogs: string[] = [];
    const page = watchErrors(await browser.context.newPage(), errors);
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(signInLink(server.app.app, server.url)!);
    await page.getByRole("heading", { name: "New research" }).waitFor();
    await page.goto(`${server.url}/runs/${runId}`);
    await page.getByRole("heading", { name: "References" }).waitFor();
    const report = page.getByTestId("report");
    const marks = report.locator("button.claim");
    await marks.first().waitFor();
    expect(
      await marks.evaluateAll((els) =>
        els.map((b) => [b.className, b.textContent, b.getAttribute("aria-label")]),
      ),
    ).toEqual([
      ["claim claim-supported", "✓", "Supported claim"],
      ["claim claim-partial", "partially supported", "Partially supported claim"],
      ["claim claim-unsupported", "unsupported", "Unsupported claim"],
      ["claim claim-unchecked", "?", "Unchecked claim"],
    ]);
    // Unsupported and partial claims look different from each other and from supported ones.
    const looks = await marks.evaluateAll((els) =>
      els.map((b) => {
        const s = getComputedStyle(b);
        return `${s.backgroundColor}|${s.borderTopStyle}|${s.color}`;
      }),
    );
    expect(new Set(looks).size).toBe(4);
    expect(looks[2]).toMatch(/^rgb\(185, 28, 28\)/);
    expect(looks[1]).toContain("|dashed|");

    // Hover: the verdict, the claim, the reason and the deciding span, all as text.
    const tip = page.getByRole("tooltip");
    await marks.nth(2).hover();
    await tip.waitFor();
    expect(await tip.locator(".tip-title").textContent()).toBe("Unsupported claim");
    expect(await tip.locator(".tip-claim").textContent()).toBe(
      "Heat pumps <script>alert(4)</script> javascript:alert(5) doubled sales in 2019.",
    );
    expect(await tip.getByTestId("claim-span").textContent()).toBe(CLAIMS[2]!.span);
    expect(await marks.nth(2).getAttribute("aria-describedby")).toBe("cite-tip");
    // Keyboard focus shows it too; Escape hides it.
    await page.mouse.move(0, 0);
    await marks.nth(1).focus();
    await tip.waitFor();
    expect(await tip.locator(".tip-title").textContent()).toBe("Partially supported claim");
    expect(await tip.getByTestId("claim-span").textContent()).toBe(HOSTILE_PASSAGE);
    expect(await tip.textContent()).toContain("Oslo only, not Bergen <a href=javascript:alert(6)>why</a>");
    await page.keyboard.press("Escape");
    await tip.waitFor({ state: "detached" });
    await marks.nth(3).focus();
    expect(await tip.textContent()).toContain("No passage span decides it.");

    // The claims themselves read as text in the report: no element made of them.
    const text = (await report.textContent())!;
    expect(text).toContain("Heat pumps cut heating emissions <b>sharply</b> in Oslo and Bergen");
    expect(text).toContain("Heat pumps <script>alert(4)</script> javascript:alert(5) doubled sales in 2019");
    expect(await page.locator("main script, main img, main b, main [onerror]").count()).toBe(0);
    expect(await page.locator('a[href^="javascript"], [href*="alert("]').count()).toBe(0);
    // The shares, and the report's own summary line.
    expect(await page.getByTestId("claim-shares").textContent()).toBe(
      "Claim check (judge model): 4 claims: 25% supported · 25% partially supported · 25% unsupported · 25% unchecked",
    );
    expect(await report.locator(".claim-summary").textContent()).toBe(
      "Claim check (judge model): 4 cited claims — 25% supported, 25% partially supported, 25% unsupported, 25% unchecked.",
    );
    await marks.nth(2).focus();
    await tip.waitFor();
    expect(await axeViolations(page, "report with claim marks")).toEqual([]);

    // The HTML report itself: the same marks, the span in the title as text, nothing live.
    await page.goto(`${server.url}/v1/runs/${runId}/report/html`);
    const spans = page.locator("span.claim");
    expect(await spans.evaluateAll((els) => els.map((s) => s.className))).toEqual([
      "claim claim-supported",
      "claim claim-partial",
      "claim claim-unsupported",
      "claim claim-unchecked",
    ]);
    expect(await spans.nth(2).getAttribute("title")).toBe(
      "Unsupported: sales are not in the passage — “<img src=x onerror=alert(7)> no sales figures”",
    );
    expect(await page.locator("script, img, [onerror], b").count()).toBe(0);
    await page.close();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });
});
