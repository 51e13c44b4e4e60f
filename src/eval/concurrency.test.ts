import { describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import { countOutcomes, runConcurrently } from "./concurrency.ts";

/** A promise the test resolves by hand. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("runConcurrently", () => {
  it("keeps at most `concurrency` items in flight and returns outcomes in input order", async () => {
    const gates = [gate(), gate(), gate(), gate()];
    let inFlight = 0;
    let peak = 0;
    const run = runConcurrently(
      [0, 1, 2, 3],
      async (i) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await gates[i]!.promise;
        inFlight -= 1;
        return i * 10;
      },
      { concurrency: 2 },
    );
    // Release in reverse order of start; the limit still holds.
    for (const i of [1, 0, 3, 2]) {
      await new Promise((r) => setImmediate(r));
      gates[i]!.open();
    }
    const outcomes = await run;
    expect(peak).toBe(2);
    expect(outcomes).toEqual([0, 10, 20, 30].map((value) => ({ ok: true, value })));
  });

  it("keeps a failure as a counted outcome without stopping the other items", async () => {
    const seen: Array<[number, number, number]> = [];
    const outcomes = await runConcurrently(
      ["a", "b", "c"],
      async (item) => {
        if (item === "b") throw new Error("bad answer");
        return item.toUpperCase();
      },
      {
        concurrency: 1,
        onSettled: (_o, _item, _i, p) => seen.push([p.done, p.failed, p.total]),
      },
    );
    expect(outcomes[0]).toEqual({ ok: true, value: "A" });
    expect(outcomes[1]).toMatchObject({ ok: false, error: { code: "INTERNAL", message: "bad answer" } });
    expect(outcomes[2]).toEqual({ ok: true, value: "C" });
    expect(countOutcomes(outcomes)).toEqual({ ok: 2, failed: 1 });
    expect(seen).toEqual([
      [1, 0, 3],
      [2, 1, 3],
      [3, 1, 3],
    ]);
  });

  it("rejects with CANCELLED when an item is cancelled, and starts nothing after it", async () => {
    const started: number[] = [];
    await expect(
      runConcurrently(
        [0, 1, 2],
        async (i) => {
          started.push(i);
          if (i === 0) throw new DossierError("CANCELLED", "cancelled: stop");
          return i;
        },
        { concurrency: 1 },
      ),
    ).rejects.toMatchObject({ code: "CANCELLED" });
    expect(started).toEqual([0]);
  });

  it("rejects at once for an already aborted signal", async () => {
    const controller = new AbortController();
    controller.abort("user");
    await expect(
      runConcurrently([1], async (i) => i, { concurrency: 1, signal: controller.signal }),
    ).rejects.toMatchObject({ code: "CANCELLED" });
  });
});
