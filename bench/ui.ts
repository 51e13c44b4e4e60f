/**
 * The web UI: the bundle size (raw and gzip) of the built app, and the time to first render
 * of a finished run's page with its report after 1,000 events (from navigation start until
 * the report is shown and every event is applied), in Debian's chromium through
 * playwright-core. Medians over several loads. Needs `npm run build` and chromium.
 *
 * Run: node bench/ui.ts [--events 1000] [--loads 9]
 */

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { createOutline } from "../src/core/outline.ts";
import { assembleReport } from "../src/kit/report-assembly.ts";
import { startServer } from "../src/server/listen.ts";
import { createProject } from "../src/server/test-fixtures.ts";
import { defaultWebRoot, signInLink } from "../src/server/web.ts";
import type { StrategyDefinition } from "../src/strategies/types.ts";
import { CHROMIUM_FLAGS } from "../test/web/browser.ts";

const arg = (name: string) => process.argv.indexOf(name);
const events = Number(process.argv[arg("--events") + 1]) || 1000;
const loads = Number(process.argv[arg("--loads") + 1]) || 9;
const chromiumPath = process.env.DOSSIER_CHROMIUM ?? "/usr/bin/chromium";
const root = defaultWebRoot();
if (!root || !existsSync(chromiumPath)) {
  process.stderr.write(`ui bench: needs the built UI (npm run build) and chromium at ${chromiumPath}\n`);
  process.exit(2);
}

// Bundle size.
let raw = 0;
let gzip = 0;
for (const file of readdirSync(join(root, "assets"))) {
  const bytes = readFileSync(join(root, "assets", file));
  raw += bytes.length;
  gzip += gzipSync(bytes, { level: 9 }).length;
}
const html = readFileSync(join(root, "index.html"));
raw += html.length;
gzip += gzipSync(html, { level: 9 }).length;

/** A strategy that records `events` events, then writes a short report. */
const many: StrategyDefinition<Record<string, never>> = {
  name: "many-events",
  description: "records many events, then a short report (benchmark)",
  optionsSchema: z.object({}).strict() as z.ZodType<Record<string, never>>,
  roles: [],
  capabilities: { needsModel: false, web: false, local: true },
  estimate: () => ({ llm: [], tools: [0, 0] }),
  async run(ctx, input) {
    for (let i = 1; i <= events - 3; i++) {
      ctx.emit({ type: "phase", phase: `step ${i}`, detail: `detail of step ${i}` });
    }
    const report = assembleReport(ctx, {
      title: "Benchmark",
      outline: createOutline([{ title: "Findings", plan: "what was found" }]),
      language: input.language,
      parts: [{ text: `## Findings\n\n${"A paragraph of findings. ".repeat(40)}`, allowed: new Set() }],
      stopReason: "completed",
    });
    return { stopReason: "completed", report };
  },
};

const project = await createProject({ strategies: [many as StrategyDefinition<never>] });
const server = await startServer({ dossier: project.dossier, port: 0 });
const { chromium } = await import("playwright-core");
const profile = mkdtempSync(join(tmpdir(), "dossier-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  args: CHROMIUM_FLAGS,
});
try {
  const page = await context.newPage();
  await page.goto(signInLink(server.app.app, server.url)!);
  const handle = project.dossier.research("How fast does a long run's page render?", {
    strategy: "many-events",
    corpus: "notes",
    formats: ["md", "html", "json"],
  });
  await handle.done;
  const logged = (await project.dossier.runs.events(handle.runId)).length;
  const samples: number[] = [];
  for (let i = 0; i < loads + 1; i++) {
    await page.goto(`${server.url}/runs/${handle.runId}`);
    await page.waitForFunction(
      (n) =>
        document.querySelector("[data-testid=report] h1") !== null &&
        document.querySelector("[data-testid=run-status]")?.textContent === "completed" &&
        document.querySelector(".timeline summary")?.textContent?.includes(`(${n})`),
      logged,
      { timeout: 60_000 },
    );
    const ms = await page.evaluate(() => performance.now());
    if (i > 0) samples.push(ms); // the first load warms the caches
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  console.log(
    `bundle: ${(raw / 1024).toFixed(1)} KiB raw, ${(gzip / 1024).toFixed(1)} KiB gzip (JS + CSS + HTML)`,
  );
  console.log(
    `first render of a finished run with ${logged} events and its report: median ${median.toFixed(0)} ms over ${samples.length} loads (min ${samples[0]!.toFixed(0)}, max ${samples.at(-1)!.toFixed(0)})`,
  );
} finally {
  await context.close();
  await server.close();
  await project.close();
  rmSync(profile, { recursive: true, force: true });
}
