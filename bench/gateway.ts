/**
 * Gateway overhead: the time a call spends in the ToolGateway beyond the work itself, for live
 * calls (concurrency queue, retry wrapper, timeout, events, metrics, journal) and for cached
 * calls (served from the SQLite cache), against a direct fetch of a loopback server.
 *
 * Run: node bench/gateway.ts [--calls 2000]
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { openSqliteStore } from "../src/store/sqlite-store.ts";
import { ToolGateway } from "../src/tools/gateway.ts";

const calls = Number(process.argv[process.argv.indexOf("--calls") + 1]) || 2000;

const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ results: [{ title: "t", url: "https://example.com", content: "c" }] }));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
const direct = async () => (await fetch(url)).json();

async function measure(label: string, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 50; i++) await fn(-1 - i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  void label;
  return samples;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: q(0.5), p95: q(0.95) };
};

const store = openSqliteStore({ home: ":memory:" });
const live = new ToolGateway({ defaults: { cacheTtlMs: 0 } });
const cached = new ToolGateway({ cache: store.cache });
await cached.call({ tool: "web_search", provider: "bench", args: { q: "same" }, run: direct });

const rows = [
  ["direct fetch", await measure("direct", () => direct())],
  [
    "gateway, live",
    await measure("live", (i) =>
      live.call({ tool: "web_search", provider: "bench", args: { q: i }, run: direct }),
    ),
  ],
  [
    "gateway, cached",
    await measure("cached", () =>
      cached.call({ tool: "web_search", provider: "bench", args: { q: "same" }, run: direct }),
    ),
  ],
] as const;

const base = stats(rows[0][1]);
console.log(`gateway overhead, ${calls} sequential calls to a loopback server (ms per call)`);
console.log(
  `${"".padEnd(18)}${"mean".padStart(9)}${"p50".padStart(9)}${"p95".padStart(9)}${"vs direct (mean)".padStart(19)}`,
);
for (const [label, samples] of rows) {
  const s = stats(samples as number[]);
  const delta = s.mean - base.mean;
  console.log(
    `${label.padEnd(18)}${s.mean.toFixed(3).padStart(9)}${s.p50.toFixed(3).padStart(9)}${s.p95.toFixed(3).padStart(9)}${`${delta >= 0 ? "+" : ""}${delta.toFixed(3)}`.padStart(19)}`,
  );
}
store.close();
server.close();
