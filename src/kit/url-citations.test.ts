import { describe, expect, it } from "vitest";
import { normalizeUrl, resolveUrlCitations, splitReferences } from "./url-citations.ts";

const byUrl = new Map([
  ["https://a.example/one", ["E3", "E1"]],
  ["https://b.example/two", ["E2"]],
]);

describe("citations by URL (SMTL's [n] and References)", () => {
  it("splits off the References and reads each entry's number and URL, in the forms checkpoints write", () => {
    const { body, urls } = splitReferences(
      "Body [1].\n\n## References\n[1]. https://a.example/one - One\n2. https://b.example/two/ - Two\n- [3] [Three](https://c.example/3)\nno entry here",
    );
    expect(body).toBe("Body [1].");
    expect([...urls]).toEqual([
      [1, "https://a.example/one"],
      [2, "https://b.example/two/"],
      [3, "https://c.example/3"],
    ]);
  });

  it("resolves numbers through their URLs to the evidence retrieved there; others stay bare numbers", () => {
    const text =
      "One [1] , both [1, 2], unknown page [3], no entry [4], and a bare link https://b.example/two.\n\nReferences:\n[1]. https://A.example/one#part - One\n[2]. https://b.example/two/ - Two\n[3]. https://c.example/never - Never";
    const r = resolveUrlCitations(text, byUrl);
    expect(r.text).toBe(
      "One [E3, E1] , both [E3, E1, E2], unknown page [3], no entry [4], and a bare link https://b.example/two.",
    );
    expect(r.cited).toEqual(["E3", "E1", "E2"]);
    expect(r.unresolved).toEqual([3, 4]);
  });

  it("a text without References keeps its numbers bare", () => {
    expect(resolveUrlCitations("Only [1].", byUrl)).toEqual({
      text: "Only [1].",
      cited: [],
      unresolved: [1],
    });
  });

  it("compares URLs without fragment, trailing slash or case of the host", () => {
    expect(normalizeUrl("HTTPS://A.Example/one/#x")).toBe("https://a.example/one");
    expect(normalizeUrl("https://a.example/one).")).toBe("https://a.example/one");
  });
});
