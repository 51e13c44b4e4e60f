/**
 * When this process's event loop was busy (running code, not waiting for I/O or timers), for the
 * orchestration benchmark: a timer every millisecond reads the loop's utilisation since its last
 * tick, so a span of wall time can be told how much of it was CPU work in this process — the
 * engine's, and the loopback servers' (which work only while a call is in flight).
 */

import { performance } from "node:perf_hooks";

/** A running sampler. */
export interface LoopBusy {
  /** Busy milliseconds within [from, to] (ms since the epoch). */
  busyBetween(from: number, to: number): number;
  stop(): void;
}

/** Starts sampling. */
export function sampleLoopBusy(): LoopBusy {
  // Each tick: [start, end, busy ms in between].
  const ticks: [number, number, number][] = [];
  let last = performance.eventLoopUtilization();
  let lastAt = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    const elu = performance.eventLoopUtilization(last);
    last = performance.eventLoopUtilization();
    ticks.push([lastAt, now, elu.active]);
    lastAt = now;
  }, 1);
  timer.unref();
  return {
    busyBetween(from, to) {
      let busy = 0;
      for (const [s, e, active] of ticks) {
        if (e <= from || s >= to) continue;
        const span = Math.max(1, e - s);
        busy += (active * (Math.min(to, e) - Math.max(from, s))) / span;
      }
      return busy;
    },
    stop: () => clearInterval(timer),
  };
}
