/**
 * The library is light: importing `dossier` loads none of the heavy dependencies (each loads in
 * the function that uses it), and `createDossier()` writes nothing to disk until a run starts.
 * Import time itself is a figure of bench/startup.ts, not asserted here.
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createDossier } from "./runtime/dossier.ts";

/** Packages that must not load with `import("dossier")`. */
const HEAVY = [
  "jsdom",
  "dompurify",
  "hono",
  "@hono/node-server",
  "@hono/zod-openapi",
  "@modelcontextprotocol/sdk",
  "ai",
  "@ai-sdk/openai",
  "@ai-sdk/anthropic",
  "@ai-sdk/google",
  "@ai-sdk/openai-compatible",
  "ollama-ai-provider-v2",
  "undici",
  "turndown",
  "@mozilla/readability",
  "pg",
  "docx",
  "@ai-sdk/otel",
  "@opentelemetry/api",
  "@opentelemetry/sdk-trace",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/exporter-trace-otlp-proto",
  // Loaded by the function that first needs them (PDF text, corpus vectors, language scores,
  // Markdown parsing, provider queues, JSON repair, address checks).
  "unpdf",
  "sqlite-vec",
  "franc-min",
  "marked",
  "p-queue",
  "jsonrepair",
  "ipaddr.js",
];

/**
 * Dossier's own modules that must not load with `import("dossier")`: each is loaded by the
 * function that runs it (a refresh, a follow-up, claim verification, a PDF, indexing a folder,
 * fetching a page) on its first call.
 */
const LAZY_MODULES = [
  "runtime/refresh-strategy.ts",
  "runtime/ask-about-strategy.ts",
  "kit/report-assembly.ts",
  "kit/section-writer.ts",
  "eval/checks/report-checks.ts",
  "eval/claims/verify-report.ts",
  "render/pdf.ts",
  "render/docx.ts",
  "tools/corpus/ingest.ts",
  "tools/corpus/extract.ts",
  "tools/fetch/http-fetch.ts",
  "tools/fetch/ssrf-guard.ts",
  "tools/fetch/html-to-markdown.ts",
  "tools/fetch/pdf-text.ts",
];

/**
 * What a fresh Node process loads when it imports `entry` (a resolve hook lists them): the
 * packages, and the files under `src/` by their path there.
 */
function modulesLoadedBy(entry: string): { packages: string[]; files: string[] } {
  const hook = `data:text/javascript,${encodeURIComponent(`
    import { registerHooks } from "node:module";
    const seen = new Set();
    const files = new Set();
    registerHooks({ resolve(s, c, next) { const r = next(s, c); const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url); if (m) seen.add(m[1]); else { const f = /\\/src\\/(.+)$/.exec(r.url); if (f) files.add(f[1]); } return r; } });
    process.on("exit", () => process.stdout.write(JSON.stringify({ packages: [...seen], files: [...files] })));
  `)}`;
  const r = spawnSync(
    process.execPath,
    ["--import", hook, "--input-type=module", "-e", `await import(${JSON.stringify(entry)})`],
    {
      encoding: "utf8",
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { packages: string[]; files: string[] };
}

/** The packages a fresh Node process loads when it imports `entry`. */
function packagesLoadedBy(entry: string): string[] {
  return modulesLoadedBy(entry).packages;
}

describe("import('dossier')", () => {
  const entry = fileURLToPath(new URL("./index.ts", import.meta.url));

  it("loads no heavy dependency", () => {
    const loaded = packagesLoadedBy(entry);
    expect(loaded).toContain("zod");
    expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it("loads none of the modules that run refreshes, follow-ups, claim checks, PDFs, indexing or fetching", () => {
    const { files } = modulesLoadedBy(entry);
    expect(files).toContain("index.ts");
    expect(files).toContain("runtime/refresh.ts");
    expect(files.filter((f) => LAZY_MODULES.includes(f))).toEqual([]);
  });

  it("dossier/server loads Hono and the MCP SDK (the check can see them)", () => {
    const loaded = packagesLoadedBy(fileURLToPath(new URL("./entries/server.ts", import.meta.url)));
    expect(loaded).toEqual(expect.arrayContaining(["hono", "@modelcontextprotocol/sdk"]));
  });
});

describe("createDossier()", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("writes nothing until a run starts; the first run creates the data directory", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "dossier-light-")));
    dirs.push(cwd);
    const dossier = createDossier({ cwd, env: {} });
    // Configuration, strategies and estimates need no store.
    expect(dossier.home).toBe(join(cwd, ".dossier"));
    expect(dossier.strategies.names().length).toBeGreaterThan(0);
    dossier.estimate("How do heat pumps perform?", { strategy: "offline", sources: "local" });
    expect(readdirSync(cwd)).toEqual([]);
    await dossier.close();
    expect(readdirSync(cwd)).toEqual([]);

    mkdirSync(join(cwd, "notes"));
    writeFileSync(
      join(cwd, "notes", "a.md"),
      "# Heat pumps\n\nHeat pumps kept a COP above 2 at minus 15 degrees.\n",
    );
    const again = createDossier({ cwd, env: {} });
    const result = await again.research("How do heat pumps perform?", { docs: "notes" }).done;
    expect(result.status).toBe("completed");
    expect(readdirSync(join(cwd, ".dossier"))).toContain("dossier.db");
    await again.close();
  });

  it("still refuses a data directory that cannot be created, before anything is written", () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "dossier-light-")));
    dirs.push(cwd);
    writeFileSync(join(cwd, "a-file"), "x");
    expect(() => createDossier({ cwd, env: { DOSSIER_HOME: join(cwd, "a-file") } })).toThrow(
      /is a file, not a directory/,
    );
    expect(() => createDossier({ cwd, env: { DOSSIER_HOME: join(cwd, "a-file", "home") } })).toThrow(
      /cannot create the data directory/,
    );
    expect(readdirSync(cwd)).toEqual(["a-file"]);
  });
});
