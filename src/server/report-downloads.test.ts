/**
 * The API's PDF and DOCX downloads of a finished run (rendered from its JSON bundle), and how a
 * server without chromium answers: no pdf listed, 422 DEPENDENCY_MISSING for a PDF download
 * and for a run that asks to write one (before it starts).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import mammoth from "mammoth";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseHtml } from "../../test/inert-html.ts";
import { pdfText, pdfToolsAnswer } from "../../test/pdf-tools.ts";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project, readSse } from "./test-fixtures.ts";

let project: Project;
let server: RunningServer;
afterEach(async () => {
  await server?.close();
  await project?.close();
});

const auth = () => ({ authorization: `Bearer ${server.token}` });
const get = (path: string) => fetch(`${server.url}${path}`, { headers: auth() });
const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify(body),
  });

interface RunJson {
  run: { id: string; status: string; reports: Record<string, string> };
}

const question = "How do heat pumps perform in cold climates?";

/** Starts the server, runs an offline research to its end and returns the finished run. */
async function finishedRun(formats?: string[]): Promise<RunJson["run"]> {
  project = await createProject();
  server = await startServer({ dossier: project.dossier, port: 0, keepAliveMs: 200 });
  const created = await post("/v1/runs", {
    question,
    strategy: "offline",
    corpus: "notes",
    sources: "local",
    ...(formats ? { formats } : {}),
  });
  expect(created.status).toBe(201);
  const { run } = (await created.json()) as RunJson;
  await readSse(await get(`/v1/runs/${run.id}/events`));
  return ((await (await get(`/v1/runs/${run.id}`)).json()) as RunJson).run;
}

describe("report downloads — DOCX", () => {
  it("serves the DOCX as an attachment with the Markdown report's headings and references", async () => {
    const run = await finishedRun();
    expect(run.status).toBe("completed");
    expect(run.reports.docx).toBe(`/v1/runs/${run.id}/report/docx`);
    const response = await get(run.reports.docx!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${run.id}.docx"`);
    const docx = Buffer.from(await response.arrayBuffer());
    const read = parseHtml((await mammoth.convertToHtml({ buffer: docx })).value);
    const markdown = await (await get(run.reports.md!)).text();
    const headings = [...markdown.matchAll(/^##+ (.+)$/gm)].map((m) => m[1]);
    expect([...read.querySelectorAll("h2, h3, h4")].map((h) => h.textContent)).toEqual(headings);
    const references = [...markdown.matchAll(/^\d+\. /gm)].length;
    expect(references).toBeGreaterThan(0);
    expect(read.querySelectorAll("a[id^='ref_']")).toHaveLength(references);
  });
});

describe("report downloads without chromium", () => {
  it("lists no pdf, refuses a PDF download with 422 and a run that asks for one before it starts", async () => {
    vi.stubEnv("DOSSIER_CHROMIUM", "/nonexistent/chromium");
    const run = await finishedRun();
    expect(Object.keys(run.reports).sort()).toEqual(["docx", "html", "json", "md"]);
    const pdf = await get(`/v1/runs/${run.id}/report/pdf`);
    expect(pdf.status).toBe(422);
    const body = (await pdf.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("DEPENDENCY_MISSING");
    expect(body.error.message).toMatch(/apt-get install chromium/);

    const before = ((await (await get("/v1/runs")).json()) as { runs: unknown[] }).runs.length;
    const refused = await post("/v1/runs", {
      question,
      strategy: "offline",
      corpus: "notes",
      formats: ["md", "pdf"],
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("DEPENDENCY_MISSING");
    expect(((await (await get("/v1/runs")).json()) as { runs: unknown[] }).runs).toHaveLength(before);
  });
});

if (pdfToolsAnswer()) {
  describe("report downloads — PDF", { timeout: 180_000 }, () => {
    it("serves the PDF of a run that wrote one, and renders one from the bundle of a run that did not", async () => {
      const run = await finishedRun(["md", "json", "pdf"]);
      const markdown = await (await get(run.reports.md!)).text();
      const headings = [...markdown.matchAll(/^##+ (.+)$/gm)].map((m) => m[1]!);
      const written = await get(run.reports.pdf!);
      expect(written.status).toBe(200);
      expect(written.headers.get("content-type")).toBe("application/pdf");
      expect(written.headers.get("content-disposition")).toBe(`inline; filename="${run.id}.pdf"`);
      const file = join(project.root, "download.pdf");
      writeFileSync(file, Buffer.from(await written.arrayBuffer()));
      const lines = pdfText(file)
        .split("\n")
        .map((l) => l.trim());
      for (const heading of headings) expect(lines).toContain(heading);
      await server.close();
      await project.close();

      const rendered = await finishedRun(["md", "json"]);
      expect(rendered.reports.pdf).toBe(`/v1/runs/${rendered.id}/report/pdf`);
      const response = await get(rendered.reports.pdf!);
      expect(response.status).toBe(200);
      expect(
        Buffer.from(await response.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe("%PDF-");
    });
  });
}
