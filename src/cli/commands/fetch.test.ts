/**
 * `dossier fetch` in-process against the loopback fake web and model servers.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../test/cli-io.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { FAKE_WEB_TEXT, type FakeWeb, startFakeWeb } from "../../../test/fake-web/index.ts";

let web: FakeWeb;
let cwd: string;

beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(() => web.close());
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-fetch-")));
});
afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process with only `env` as its environment. */
function dossier(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, ...env } });
}

describe("dossier fetch", () => {
  it("refuses the cloud metadata URL", async () => {
    const result = await dossier(["fetch", "http://169.254.169.254/latest/meta-data/"]);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /^dossier: error \[NETWORK_REFUSED\]: refused to connect to 169\.254\.169\.254: a cloud metadata address/,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("refuses the loopback server without the allow flag and makes no request", async () => {
    const before = web.requests.length;
    const result = await dossier(["fetch", web.url("/article")]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("dossier: error [NETWORK_REFUSED]: refused to connect to 127.0.0.1");
    expect(result.stderr).toContain("DOSSIER_ALLOW_PRIVATE_NETWORK=1");
    expect(web.requests.length).toBe(before);
  });

  it("refuses a file: URL", async () => {
    const result = await dossier(["fetch", "file:///etc/passwd"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toBe(
      "dossier: error [NETWORK_REFUSED]: refused to fetch file:// URL file:///etc/passwd: only http and https are allowed\n",
    );
  });

  it("prints the loopback article as Markdown when private networks are allowed", async () => {
    const result = await dossier(["fetch", web.url("/article")], { DOSSIER_ALLOW_PRIVATE_NETWORK: "1" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(FAKE_WEB_TEXT.articleSentence);
    expect(result.stdout).toContain("| Year | Output (GWh) |");
    for (const phrase of FAKE_WEB_TEXT.boilerplate) expect(result.stdout).not.toContain(phrase);
    expect(web.requests.at(-1)?.path).toBe("/article");
  });

  it("prints JSON with --json, including PDF pages", async () => {
    const result = await dossier(["fetch", web.url("/doc.pdf"), "--json"], {
      DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
    });
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      title: FAKE_WEB_TEXT.pdfTitle,
      finalUrl: web.url("/doc.pdf"),
      contentType: "pdf",
      pages: FAKE_WEB_TEXT.pdfPages.map((text, i) => ({ page: i + 1, text })),
    });
    expect(parsed.text).toContain("<!-- page 3 -->");
  });

  it("reports a 404 and a body over --max-bytes as one-line errors", async () => {
    const env = { DOSSIER_ALLOW_PRIVATE_NETWORK: "1" };
    const missing = await dossier(["fetch", web.url("/missing")], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`dossier: error [PROVIDER_ERROR]: fetch ${web.url("/missing")}: HTTP 404\n`);
    const large = await dossier(["fetch", web.url("/article"), "--max-bytes", "100"], env);
    expect(large.code).toBe(1);
    expect(large.stderr).toMatch(/^dossier: error \[TOO_LARGE\]: .*size limit of 100 bytes/);
    const bad = await dossier(["fetch", web.url("/article"), "--max-bytes", "lots"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("[INPUT_INVALID]");
  });

  describe("with --goal", () => {
    let llm: FakeOpenAI;
    beforeAll(async () => {
      llm = await startFakeOpenAI();
    });
    afterAll(() => llm.close());

    it("prints the reader's rationale, verbatim evidence and summary as JSON", async () => {
      llm.enqueue({
        kind: "text",
        text: JSON.stringify({
          rationale: "The article states the pilot's output.",
          evidence: [FAKE_WEB_TEXT.articleSentence, "An invented sentence that is not on the page."],
          summary: "1.2 GWh in the first year.",
        }),
      });
      const result = await dossier(["fetch", web.url("/article"), "--goal", "pilot output", "--json"], {
        DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
        DOSSIER_MODEL: "openai-compatible:reader-model",
        DOSSIER_BASE_URL: llm.url,
      });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        finalUrl: web.url("/article"),
        rationale: "The article states the pilot's output.",
        evidence: [FAKE_WEB_TEXT.articleSentence],
        summary: "1.2 GWh in the first year.",
        dropped: 1,
      });
      expect(llm.pending()).toBe(0);
    });

    it("needs a configured model", async () => {
      const result = await dossier(["fetch", web.url("/article"), "--goal", "x"], {
        DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^dossier: error \[MODEL_NOT_CONFIGURED\]/);
    });
  });
});
