import { describe, expect, it } from "vitest";
import {
  asciiDomain,
  checkSourceUrl,
  describeSourceFilter,
  filterSources,
  hostRefusal,
  sourceFilterInputSchema,
  sourceFilterSchema,
} from "./source-filter.ts";

const filter = (input: unknown) => sourceFilterSchema.parse(input);
const firstIssue = (input: unknown) => {
  const parsed = sourceFilterSchema.safeParse(input);
  expect(parsed.success).toBe(false);
  const issue = parsed.error!.issues[0]!;
  return `${issue.path.join(".")}: ${issue.message}`;
};
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("a domain covers itself and the hosts below it", () => {
  const allow = filter({ domains: ["example.org"] });

  it.each([
    ["example.org", true],
    ["www.example.org", true],
    ["a.b.example.org", true],
    ["WWW.Example.ORG", true],
    ["badexample.org", false],
    ["example.org.evil.com", false],
    ["org", false],
  ])("%s allowed: %s", (host, allowed) => {
    expect(hostRefusal(allow, host) === undefined).toBe(allowed);
  });

  it("compares internationalised names in their ASCII form, both ways", () => {
    expect(asciiDomain("Bücher.DE")).toBe("xn--bcher-kva.de");
    const unicode = filter({ domains: ["bücher.de"] });
    expect(unicode.domains).toEqual(["xn--bcher-kva.de"]);
    expect(hostRefusal(unicode, "xn--bcher-kva.de")).toBeUndefined();
    expect(hostRefusal(unicode, "shop.bücher.de")).toBeUndefined();
    const ascii = filter({ excludeDomains: ["xn--bcher-kva.de"] });
    // A URL with a Unicode host is read in its ASCII form (WHATWG URL), and refused.
    expect(() => checkSourceUrl(ascii, "https://www.bücher.de/buch")).toThrow(
      /www\.xn--bcher-kva\.de is under the excluded domain xn--bcher-kva\.de/,
    );
  });

  it("a deny list wins inside an allow list, and names its rule", () => {
    const f = filter({ domains: ["example.org"], excludeDomains: ["blog.example.org"] });
    expect(hostRefusal(f, "www.example.org")).toBeUndefined();
    expect(hostRefusal(f, "x.blog.example.org")).toBe(
      "x.blog.example.org is under the excluded domain blog.example.org",
    );
    expect(hostRefusal(f, "other.com")).toBe("other.com is not under an allowed domain (example.org)");
  });

  it("a refused URL is SOURCE_FILTERED, not retryable, naming the URL and the rule", () => {
    const f = filter({ excludeDomains: ["x.com"] });
    let error: unknown;
    try {
      checkSourceUrl(f, "https://api.x.com/page");
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: "SOURCE_FILTERED",
      retryable: false,
      message:
        "https://api.x.com/page: refused by the run's source filter (api.x.com is under the excluded domain x.com)",
    });
  });
});

describe("checking a source filter", () => {
  it("normalises and deduplicates the domains", () => {
    expect(filter({ domains: ["Example.org", "example.org.", " example.org "] })).toEqual({
      domains: ["example.org"],
    });
  });

  it.each([
    [{ domains: Array.from({ length: 21 }, (_, i) => `d${i}.org`) }, "domains: at most 20 domains"],
    [
      { excludeDomains: Array.from({ length: 21 }, (_, i) => `d${i}.org`) },
      "excludeDomains: at most 20 domains",
    ],
    [{ domains: ["https://example.org"] }, 'domains.0: "https://example.org" is not a host name'],
    [{ domains: ["example.org/path"] }, "is not a host name"],
    [{ domains: ["example.org:443"] }, "is not a host name"],
    [{ excludeDomains: ["bad host.com"] }, "is not a host name"],
    [{ domains: ["-bad.com"] }, "is not a host name"],
    [{ domains: ["10.0.0.1"] }, "is not a host name"],
    [{ domains: [""] }, "is not a host name"],
    [{ since: "2024-02-30" }, "since: not a calendar date"],
    [{ since: "yesterday" }, "since: expected YYYY-MM-DD"],
    [{ since: isoDay(Date.now() + 3 * 86_400_000) }, "since: the date is in the future"],
    [{ domains: ["a.org", "Bücher.de"], excludeDomains: ["xn--bcher-kva.de"] }, "is both allowed"],
    [{ domain: ["a.org"] }, 'Unrecognized key: "domain"'],
  ])("refuses %j", (input, message) => {
    expect(firstIssue(input)).toContain(message);
    // The API's input schema (no transform) refuses the same.
    expect(sourceFilterInputSchema.safeParse(input).success).toBe(false);
  });

  it("takes today and past days", () => {
    expect(filter({ since: isoDay(Date.now()) }).since).toBe(isoDay(Date.now()));
    expect(filter({ since: "2020-02-29" }).since).toBe("2020-02-29");
  });
});

describe("filtering results", () => {
  const results = [
    { url: "https://www.example.org/a", publishedAt: "2024-06-01" },
    { url: "https://badexample.org/b" },
    { url: "https://example.org/old", publishedAt: "2023-12-31T23:59:00.000Z" },
    { url: "https://example.org/undated" },
    { url: "https://example.org/same-day", publishedAt: "2024-01-01" },
  ];

  it("drops refused hosts and results known to be older than since; keeps undated ones", () => {
    const kept = filterSources(results, filter({ domains: ["example.org"], since: "2024-01-01" }));
    expect(kept.map((r) => r.url)).toEqual([
      "https://www.example.org/a",
      "https://example.org/undated",
      "https://example.org/same-day",
    ]);
  });

  it("keeps everything without a filter", () => {
    expect(filterSources(results, undefined)).toEqual(results);
    expect(filterSources(results, filter({}))).toEqual(results);
  });

  it("says which filters applied", () => {
    expect(describeSourceFilter(filter({}))).toBe("");
    expect(
      describeSourceFilter(filter({ domains: ["a.org"], excludeDomains: ["x.com"], since: "2024-01-01" })),
    ).toBe(
      "Web sources were filtered: only the domains a.org; excluding x.com; only sources published since 2024-01-01 (where the date is known).",
    );
  });
});
