/**
 * When this process was working, for the orchestration benchmark: a timer every millisecond reads
 * the CPU time the process used since its last tick (`process.cpuUsage`: every thread of it), so
 * a span of wall time can be told how much CPU work this process did in it — the engine's, and
 * the loopback servers' (which work only while a call is in flight). On a loaded machine a span
 * takes longer than the CPU work in it: the process waited for a core.
 */

/** A running sampler. */
export interface LoopBusy {
  /** CPU milliseconds this process used within [from, to] (ms since the epoch). */
  busyBetween(from: number, to: number): number;
  stop(): void;
}

/** Starts sampling. */
export function sampleLoopBusy(): LoopBusy {
  // Each tick: [start, end, CPU ms in between].
  const ticks: [number, number, number][] = [];
  let last = process.cpuUsage();
  let lastAt = Date.now();
  const tick = () => {
    const now = Date.now();
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    ticks.push([lastAt, now, (used.user + used.system) / 1000]);
    lastAt = now;
  };
  const timer = setInterval(tick, 1);
  timer.unref();
  return {
    busyBetween(from, to) {
      // What ran since the last tick (the loop may not have been free to tick since).
      tick();
      let busy = 0;
      for (const [s, e, cpu] of ticks) {
        if (e <= from || s >= to) continue;
        const span = Math.max(1, e - s);
        busy += (cpu * (Math.min(to, e) - Math.max(from, s))) / span;
      }
      return busy;
    },
    stop: () => clearInterval(timer),
  };
}
