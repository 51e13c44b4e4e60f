import { describe, expect, it } from "vitest";
import { headingSlug, Slugger } from "./slug.ts";

describe("headingSlug", () => {
  it("follows GitHub's rules", () => {
    expect(headingSlug("Hello World!")).toBe("hello-world");
    expect(headingSlug("API: v2.0 (beta)")).toBe("api-v20-beta");
    expect(headingSlug("C++ & C#")).toBe("c--c");
    expect(headingSlug("snake_case and kebab-case")).toBe("snake_case-and-kebab-case");
    expect(headingSlug("  Trimmed  ")).toBe("trimmed");
  });

  it("keeps CJK letters and accents", () => {
    expect(headingSlug("机器学习 简介")).toBe("机器学习-简介");
    expect(headingSlug("深度学习（DL）")).toBe("深度学习dl");
    expect(headingSlug("Über Café")).toBe("über-café");
  });
});

describe("Slugger", () => {
  it("numbers repeated headings like GitHub", () => {
    const slugger = new Slugger();
    expect(["Usage", "Usage", "Usage", "Usage 1"].map((h) => slugger.slug(h))).toEqual([
      "usage",
      "usage-1",
      "usage-2",
      "usage-1-1",
    ]);
  });

  it("gives headings without sluggable characters a name", () => {
    const slugger = new Slugger();
    expect(slugger.slug("!!!")).toBe("section");
    expect(slugger.slug("???")).toBe("section-1");
  });
});
