/**
 * Refresh benchmark: what a refresh (`dossier refresh`) costs against the first run, when 0%,
 * 25% and 100% of the report's cited pages changed. Each row is its own loopback research
 * world (scripted model, minddr with `--subtasks` agents, each reading one page; section N of
 * the report cites page N + 1): the first run, then the chosen share of its cited pages changed
 * (`world.changePages`), then a refresh. Printed: the pages changed, the sections rewritten,
 * and the refresh's model calls, tokens (input + output) and tool calls, each beside the first
 * run's and as a share of it. Tokens are the fake model's counts (the prompt's and answer's
 * words), so the shares are the figure to read, not the absolute numbers.
 *
 * Run: node bench/refresh.ts [--subtasks 4] [--shares 0,25,100]
 */

import type { UsageTotals } from "../src/core/usage.ts";
import { createDossier } from "../src/runtime/dossier.ts";
import { perSourceSections } from "../test/research/refresh-answers.ts";
import { startResearchWorld } from "../test/research/world.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const subtasks = Number(arg("subtasks") ?? 4);
const shares = (arg("shares") ?? "0,25,100").split(",").map(Number);
const QUESTION = "How is topic adoption changing?";

const tokensOf = (u: UsageTotals | null) => (u ? (u.inputTokens ?? 0) + (u.outputTokens ?? 0) : 0);
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "—");

interface Row {
  share: number;
  changed: string;
  rewritten: number;
  sections: number;
  calls: [number, number];
  tokens: [number, number];
  tools: [number, number];
}

async function measure(share: number): Promise<Row> {
  const world = await startResearchWorld({ subtasks, override: perSourceSections });
  const dossier = createDossier({ config: world.config, cwd: world.home, env: {} });
  try {
    const first = await dossier.research(QUESTION, { strategy: "minddr" }).done;
    if (first.status !== "completed") throw new Error(`first run ${first.status}`);
    const pages = first.report!.references.map((r) => Number(/\/page\/(\d+)$/.exec(r.locator)![1]));
    const count = Math.round((share / 100) * pages.length);
    world.changePages(pages.slice(0, count));
    const refreshed = await dossier.refresh(first.runId);
    if (refreshed.status !== "completed") throw new Error(`refresh ${refreshed.status}`);
    const sections = refreshed.report!.body.split("\n").filter((l) => l.startsWith("## ")).length + 1;
    return {
      share,
      changed: `${count} of ${pages.length}`,
      rewritten: refreshed.sectionsChanged.length,
      sections,
      calls: [refreshed.usage?.llmCalls ?? 0, first.usage?.llmCalls ?? 0],
      tokens: [tokensOf(refreshed.usage), tokensOf(first.usage)],
      tools: [refreshed.usage?.toolCalls ?? 0, first.usage?.toolCalls ?? 0],
    };
  } finally {
    await dossier.close();
    await world.close();
  }
}

const rows: Row[] = [];
for (const share of shares) rows.push(await measure(share));

const header = [
  "pages changed",
  "sections rewritten",
  "model calls (refresh / first)",
  "tokens (refresh / first)",
  "tool calls (refresh / first)",
];
const lines = rows.map((r) => [
  `${r.share}% (${r.changed})`,
  `${r.rewritten} of ${r.sections}`,
  `${r.calls[0]} / ${r.calls[1]} = ${pct(...r.calls)}`,
  `${r.tokens[0]} / ${r.tokens[1]} = ${pct(...r.tokens)}`,
  `${r.tools[0]} / ${r.tools[1]} = ${pct(...r.tools)}`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(
  `Refresh cost against the first run (loopback world, scripted model, minddr, ${subtasks} agents)`,
);
console.log(row(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const l of lines) console.log(row(l));
