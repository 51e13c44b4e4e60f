import { describe, expect, it } from "vitest";
import type { DossierEvent } from "../core/events.ts";
import { earlierEvidence } from "./earlier-evidence.ts";

const stamp = (seq: number) => ({ seq, runId: "r1", ts: "2026-01-01T00:00:00.000Z" });

describe("earlierEvidence", () => {
  it("reads the sources and evidence the log's earlier attempts registered, skipping malformed ones", () => {
    const source = { id: "S1", kind: "web", url: "https://x.example/", title: "x", fetchedAt: "t" };
    const evidence = {
      id: "E1",
      sourceId: "S1",
      text: "alpha",
      retrievedBy: { tool: "web_search", callId: "T1" },
    };
    const events = [
      { type: "source-add", source, ...stamp(1) },
      { type: "evidence-add", evidence, ...stamp(2) },
      { type: "evidence-add", evidence: { id: "bad" }, ...stamp(3) },
      { type: "phase", phase: "searching", ...stamp(4) },
    ] as unknown as DossierEvent[];
    expect(earlierEvidence(events)).toEqual({ sources: [source], evidence: [evidence] });
  });
});
