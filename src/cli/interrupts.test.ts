import { describe, expect, it } from "vitest";
import { listenForInterrupts } from "./interrupts.ts";

describe("listenForInterrupts", () => {
  it("aborts on Ctrl-C without calling it terminated, and stops listening when told", () => {
    const before = process.listenerCount("SIGINT");
    const interrupts = listenForInterrupts();
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    process.emit("SIGINT", "SIGINT");
    expect(interrupts.signal.reason).toBe("interrupted (Ctrl-C)");
    expect(interrupts.terminated()).toBe(false);
    interrupts.stop();
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("aborts on SIGTERM and remembers it", () => {
    const before = process.listenerCount("SIGTERM");
    const interrupts = listenForInterrupts();
    process.emit("SIGTERM", "SIGTERM");
    expect(interrupts.signal.aborted).toBe(true);
    expect(interrupts.signal.reason).toBe("terminated (SIGTERM)");
    expect(interrupts.terminated()).toBe(true);
    interrupts.stop();
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });
});
