import { describe, expect, it } from "vitest";
import type { Evidence } from "../core/source.ts";
import { type Observation, renderObservations, renderObservationsBrief } from "./observation.ts";

const evidence = (id: string, text: string): Evidence =>
  ({
    id,
    sourceId: `S-${id}`,
    text,
    query: "q",
    retrievedBy: { tool: "web_search", callId: "c" },
  }) as Evidence;

const search: Observation = {
  action: 'web_search "battery cost"',
  ok: true,
  evidence: [evidence("E1", "Pack prices fell 20 percent in 2024."), evidence("E2", "Adoption doubled.")],
  lines: ["No snippet — https://example.org/c"],
  heads: { E1: "Prices — https://example.org/a", E2: "Adoption — https://example.org/b" },
};

describe("observations", () => {
  it("shows a search result and its snippet once, the URL ending its line", () => {
    expect(renderObservations([search])).toBe(
      [
        '- web_search "battery cost" → 2 item(s)',
        "  No snippet — https://example.org/c",
        "  [E1] Prices — https://example.org/a",
        "    Pack prices fell 20 percent in 2024.",
        "  [E2] Adoption — https://example.org/b",
        "    Adoption doubled.",
      ].join("\n"),
    );
  });

  it("shows an earlier step's results without their excerpts", () => {
    expect(renderObservationsBrief([search])).toBe(
      [
        '- web_search "battery cost" → 2 item(s)',
        "  [E1] Prices — https://example.org/a",
        "  [E2] Adoption — https://example.org/b",
        "  No snippet — https://example.org/c",
      ].join("\n"),
    );
  });

  it("shows evidence without a head (a page reading) by id and excerpt", () => {
    const read: Observation = {
      action: "read_page https://example.org/a",
      ok: true,
      evidence: [evidence("E3", "A passage.")],
      lines: ["summary: prices fell"],
    };
    expect(renderObservations([read])).toBe(
      ["- read_page https://example.org/a → 1 item(s)", "  summary: prices fell", "  [E3] A passage."].join(
        "\n",
      ),
    );
    expect(renderObservationsBrief([read])).toBe(
      ["- read_page https://example.org/a → 1 item(s): E3", "  summary: prices fell"].join("\n"),
    );
  });
});
