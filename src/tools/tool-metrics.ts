/**
 * Per-tool and per-provider counters of the gateway.
 */

/** Counters of one tool or provider. */
export interface ToolMetric {
  name: string;
  calls: number;
  /** Share of all gateway calls, 0..1. */
  share: number;
  failures: number;
  /** failures / calls, 0..1. */
  failureRate: number;
  cacheHits: number;
  /** Sum of latencies of live (non-cached) calls. */
  liveLatencyMs: number;
}

/** A snapshot of the gateway's counters. */
export interface ToolMetrics {
  totalCalls: number;
  tools: ToolMetric[];
  providers: ToolMetric[];
}

type Counter = Omit<ToolMetric, "name" | "share" | "failureRate">;

/** Accumulates counters. */
export class MetricsRecorder {
  readonly #tools = new Map<string, Counter>();
  readonly #providers = new Map<string, Counter>();
  #total = 0;

  /** Records one finished call. */
  record(tool: string, provider: string, outcome: { ok: boolean; cached: boolean; latencyMs: number }): void {
    this.#total++;
    for (const [map, key] of [
      [this.#tools, tool],
      [this.#providers, provider],
    ] as const) {
      const c = map.get(key) ?? { calls: 0, failures: 0, cacheHits: 0, liveLatencyMs: 0 };
      c.calls++;
      if (!outcome.ok) c.failures++;
      if (outcome.cached) c.cacheHits++;
      else c.liveLatencyMs += outcome.latencyMs;
      map.set(key, c);
    }
  }

  /** The counters now. */
  snapshot(): ToolMetrics {
    const list = (map: Map<string, Counter>) =>
      [...map.entries()]
        .map(([name, c]) => ({
          name,
          ...c,
          share: this.#total ? c.calls / this.#total : 0,
          failureRate: c.calls ? c.failures / c.calls : 0,
        }))
        .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
    return { totalCalls: this.#total, tools: list(this.#tools), providers: list(this.#providers) };
  }
}
