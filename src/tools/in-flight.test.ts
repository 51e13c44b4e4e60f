import { describe, expect, it } from "vitest";
import { InFlight } from "./in-flight.ts";

describe("InFlight", () => {
  it("lets later calls wait for the claimed one, and forgets the key once settled", async () => {
    const flights = new InFlight();
    expect(flights.pending("k")).toBeUndefined();
    const settle = flights.claim("k");
    const waiting = flights.pending("k");
    expect(waiting).toBeDefined();
    // A second claim of a held key settles nothing.
    flights.claim("k")({ ok: false });
    settle({ ok: true, value: 42 });
    expect(await waiting).toEqual({ ok: true, value: 42 });
    expect(flights.pending("k")).toBeUndefined();
  });

  it("ignores a second settle, which cannot release a newer claim of the key", async () => {
    const flights = new InFlight();
    const first = flights.claim("k");
    first({ ok: false });
    const second = flights.claim("k");
    const waiting = flights.pending("k");
    first({ ok: true, value: "late" });
    expect(flights.pending("k")).toBe(waiting);
    second({ ok: true, value: "mine" });
    expect(await waiting).toEqual({ ok: true, value: "mine" });
  });
});
