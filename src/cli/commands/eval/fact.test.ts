import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliOutcome, runCliInProcess } from "../../../../test/cli-io.ts";
import { startFakeOpenAI } from "../../../../test/fake-openai/server.ts";
import type { RecordedRequest, Reply } from "../../../../test/fake-openai/types.ts";

let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(join(os.tmpdir(), "dossier-fact-")));
});
afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

/** Runs `dossier <args>` in-process with a minimal environment plus `env`. */
function dossier(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return runCliInProcess(args, { cwd, env: { HOME: cwd, ...env } });
}

const group = (facts: string[], results: string[], error: string | null = null) => ({
  facts,
  url_content: "page text",
  validate_res: results.map((result, idx) => ({ idx, result })),
  validate_error: error,
});

describe("dossier eval fact --validations", () => {
  it("recomputes the figures from stored judgements", async () => {
    const file = join(cwd, "validated.jsonl");
    const records = [
      {
        id: 1,
        prompt: "p1",
        citations: [
          { fact: "a", ref_idx: 1, url: "u1" },
          { fact: "b", ref_idx: 2, url: "u2" },
        ],
        citations_deduped: {
          u1: group(["a", "c"], ["supported", "supported"]),
          u2: group(["b"], ["unsupported"]),
        },
      },
      { id: 2, prompt: "p2", citations: [], citations_deduped: {} },
      {
        id: 3,
        prompt: "p3",
        citations: [{ fact: "d", ref_idx: "1", url: "u3" }],
        citations_deduped: { u3: group(["d", "e"], ["unknown", "supported"]) },
      },
    ];
    fs.writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    // 2 reports cite: supported 3, unsupported 1 → effective 1.5, accuracy 0.75, 2 per report.
    const table = await dossier(["eval", "fact", "--validations", file, "--out", "out"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("  Effective citations:  1.5000\n  Citation accuracy:    0.7500\n");
    expect(fs.readFileSync(join(cwd, "out/fact_result.txt"), "utf8")).toBe(
      "total_citations: 2.0\ntotal_valid_citations: 1.5\nvalid_rate: 0.75\n",
    );
    const json = await dossier(["eval", "fact", "--validations", file, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      effective_citations: 1.5,
      citation_accuracy: 0.75,
      citations_per_report: 2,
      reports: 3,
      reports_with_citations: 2,
      unknown: 1,
      failed_urls: 0,
    });
  });

  it("needs --reports or --validations", async () => {
    const r = await dossier(["eval", "fact"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^dossier: error \[INPUT_INVALID\]: --reports or --validations is required/);
  });
});

describe("dossier eval fact --reports", () => {
  it("fetches cited pages through the tool layer and judges them over the OpenAI-compatible API", async () => {
    const pages = createServer((req, res) => {
      const body: Record<string, string> = { "/a": "Prices rose 5% in 2024.", "/b": "Stocks were flat." };
      const text = body[req.url ?? ""];
      res.writeHead(text ? 200 : 404, { "content-type": "text/plain; charset=utf-8" });
      res.end(text ?? "not found");
    });
    await new Promise<void>((r) => pages.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    const server = await startFakeOpenAI({
      handler: (request: RecordedRequest): Reply => {
        const body = request.body as { messages: Array<{ role: string; content: string }> };
        const prompt = body.messages.filter((m) => m.role === "user").at(-1)!.content;
        const statements = /<statements>\n([\s\S]*?)\n<\/statements>/.exec(prompt)![1]!.split("\n");
        const verdicts = statements.map((s, i) => ({
          idx: i + 1,
          result: s.includes("rose") ? "supported" : "unsupported",
        }));
        return { kind: "text", text: JSON.stringify(verdicts) };
      },
    });
    try {
      const report = join(cwd, "report.md");
      fs.writeFileSync(
        report,
        `# Rice\n\nPrices rose [1]. Stocks fell [2]. Output grew [3].\n\n## References\n\n1. A. <${base}/a>\n2. B. <${base}/b>\n3. C. <${base}/missing>\n`,
      );
      const r = await dossier(["eval", "fact", "--reports", report, "--out", "out", "--json"], {
        DOSSIER_MODEL: "openai-compatible:judge",
        DOSSIER_BASE_URL: server.url,
        DOSSIER_ALLOW_PRIVATE_NETWORK: "1",
      });
      expect(r.stderr).toMatch(/fact: no reference: /);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        effective_citations: 1,
        citation_accuracy: 0.5,
        citations_per_report: 2,
        supported: 1,
        unsupported: 1,
        fetch_failed_urls: 1,
        judge_failed_urls: 0,
      });
      expect(server.requests).toHaveLength(2);
      const validated = JSON.parse(fs.readFileSync(join(cwd, "out/validated.jsonl"), "utf8"));
      expect(validated.id).toBe("report");
      expect(validated.citations_deduped[`${base}/a`].validate_res).toEqual([
        { idx: 0, result: "supported" },
      ]);
    } finally {
      await server.close();
      await new Promise((r) => pages.close(r));
    }
  });
});
