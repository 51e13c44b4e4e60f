/**
 * Page-extraction benchmark on the Scrapinghub article-extraction benchmark (181 real article
 * pages with hand-written article bodies), read from `../shared/benchmarks/article_extraction`
 * beside the repository (never copied into it). Each page goes through the HTML path of
 * `fetch_page` (charset detection, then main content → Markdown) and the Markdown — the text a
 * model is given — is scored as the benchmark's `evaluate.py` does: 4-token shingles of `\w+`
 * tokens; per page, true positives, false positives and false negatives counted over shingle
 * multisets and normalised to sum 1; precision and recall each averaged over the pages where
 * they are defined; F1 from the two means. The published outputs of readability_js and
 * trafilatura (`baselines/`) are scored the same way and printed beside.
 *
 *   node bench/extraction.ts [--data <folder>] [--worst 10]
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { decodeText } from "../src/tools/fetch/charset.ts";
import { htmlToMarkdown } from "../src/tools/fetch/html-to-markdown.ts";

type Counts = [tp: number, fp: number, fn: number];

/** Python's `\w+` over a str: letters, digits (all numeric characters) and the underscore. */
const TOKEN = /[\p{L}\p{N}_]+/gu;

function shingles(text: string, n = 4): Map<string, number> {
  const tokens = text.match(TOKEN) ?? [];
  const counts = new Map<string, number>();
  for (let i = 0; i < Math.max(1, tokens.length - n + 1); i++) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length === 0) continue;
    const key = shingle.join("\u0000");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** `string_shingle_matching` of evaluate.py. */
export function shingleCounts(truth: string, prediction: string): Counts {
  const expected = shingles(truth);
  const got = shingles(prediction);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...expected.keys(), ...got.keys()])) {
    const t = expected.get(key) ?? 0;
    const p = got.get(key) ?? 0;
    tp += Math.min(t, p);
    fp += Math.max(0, p - t);
    fn += Math.max(0, t - p);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [tp, fp, fn];
}

function precision([tp, fp, fn]: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

function recall([tp, fp, fn]: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** `metrics_from_tp_fp_fns` of evaluate.py. */
export function metrics(counts: readonly Counts[]): { precision: number; recall: number; f1: number } {
  const p = mean(counts.filter(([tp, fp]) => tp + fp > 0).map(precision));
  const r = mean(counts.filter(([tp, , fn]) => tp + fn > 0).map(recall));
  return { precision: p, recall: r, f1: (2 * p * r) / (p + r) };
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const data = resolve(flag("--data") ?? join(root, "..", "shared", "benchmarks", "article_extraction"));
if (!existsSync(join(data, "ground-truth.json"))) {
  console.log(
    `skipped: no article-extraction benchmark at ${data} (expected ground-truth.json, html/, baselines/)`,
  );
  process.exit(0);
}

const truth = JSON.parse(readFileSync(join(data, "ground-truth.json"), "utf8")) as Record<
  string,
  { articleBody?: string; url?: string }
>;
const ids = Object.keys(truth);
const started = performance.now();
const ours = new Map<string, string>();
const timings: number[] = [];
for (const file of readdirSync(join(data, "html")).filter((f) => f.endsWith(".html.gz"))) {
  const id = file.slice(0, -".html.gz".length);
  const bytes = new Uint8Array(gunzipSync(readFileSync(join(data, "html", file))));
  const t0 = performance.now();
  const decoded = decodeText(bytes, { html: true });
  const page = htmlToMarkdown(decoded.text, truth[id]?.url ?? `https://example.com/${id}`);
  timings.push(performance.now() - t0);
  ours.set(id, page.markdown);
}
const seconds = (performance.now() - started) / 1000;

const score = (outputs: (id: string) => string) =>
  ids.map((id) => shingleCounts(truth[id]?.articleBody ?? "", outputs(id)));
const rows: [string, ReturnType<typeof metrics>][] = [];
const dossierCounts = score((id) => ours.get(id) ?? "");
rows.push(["dossier", metrics(dossierCounts)]);
for (const name of ["readability_js", "trafilatura"]) {
  const path = join(data, "baselines", `${name}.json`);
  if (!existsSync(path)) continue;
  const baseline = JSON.parse(readFileSync(path, "utf8")) as {
    output: Record<string, { articleBody?: string }>;
    version?: string;
  };
  rows.push([
    `${name} ${baseline.version ?? ""}`.trim(),
    metrics(score((id) => baseline.output[id]?.articleBody ?? "")),
  ]);
}

timings.sort((a, b) => a - b);
console.log(`\n== article extraction: ${ids.length} pages, 4-token shingles of \\w+ tokens ==`);
console.log(`${"extractor".padEnd(22)} precision  recall     F1`);
for (const [name, m] of rows) {
  console.log(
    `${name.padEnd(22)} ${m.precision.toFixed(3).padEnd(10)} ${m.recall.toFixed(3).padEnd(10)} ${m.f1.toFixed(3)}`,
  );
}
console.log(
  `dossier time           ${seconds.toFixed(1)} s; per page p50 ${timings[Math.floor(timings.length / 2)]!.toFixed(0)} ms, max ${timings[timings.length - 1]!.toFixed(0)} ms`,
);
const worst = Number(flag("--worst") ?? 0);
if (worst > 0) {
  console.log(`\nworst ${worst} pages (F1 of the page):`);
  ids
    .map((id, i) => {
      const c = dossierCounts[i]!;
      const p = precision(c);
      const r = recall(c);
      return { id, p, r, f: p + r > 0 ? (2 * p * r) / (p + r) : 0 };
    })
    .sort((a, b) => a.f - b.f)
    .slice(0, worst)
    .forEach((x) => {
      console.log(`${x.id.slice(0, 12)}  P ${x.p.toFixed(2)}  R ${x.r.toFixed(2)}  F1 ${x.f.toFixed(2)}`);
    });
}
