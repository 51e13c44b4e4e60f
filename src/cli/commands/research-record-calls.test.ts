/**
 * `dossier research --record-calls`: the run keeps its model calls in its log (`runs events
 * --type llm-call`), while the live event stream (`--events ndjson`) leaves them out.
 */

import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { dossierInWorld } from "../../../test/research/world-cli.ts";
import type { DossierEvent } from "../../core/events.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("dossier research --record-calls", () => {
  it("records every model call in the run's log and keeps them out of the live stream", async () => {
    world = await startResearchWorld({ expectCalls: { "smtl-plan": 1, "smtl-step": 2, reader: 1 } });
    const question = "Which topic saw measured growth in the 2025 survey?";
    const run = await dossierInWorld(
      [
        "research",
        question,
        "--strategy",
        "smtl",
        "--mode",
        "answer",
        "--record-calls",
        "--events",
        "ndjson",
        "--date",
        "2026-03-01",
      ],
      world,
    );
    expect(run.code).toBe(0);
    const streamed = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as DossierEvent | { runId?: string; type?: string });
    const events = streamed.filter((e): e is DossierEvent => typeof (e as DossierEvent).seq === "number");
    expect(events.some((e) => e.type === "llm-end")).toBe(true);
    expect(events.some((e) => e.type === "llm-call")).toBe(false);
    const runId = events[0]!.runId;

    const stored = await dossierInWorld(["runs", "events", runId, "--type", "llm-call", "--json"], world);
    expect(stored.code).toBe(0);
    const calls = stored.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as DossierEvent);
    expect(calls).toHaveLength(events.filter((e) => e.type === "llm-end").length);
    expect(calls.every((c) => c.type === "llm-call" && c.completion.length > 0)).toBe(true);
    const plain = await dossierInWorld(["runs", "events", runId, "--type", "llm-call"], world);
    expect(plain.stdout).toMatch(/llm-call .*L1 searcher step 1: 2 new messages/);
  }, 60_000);
});
