import { describe, expect, it } from "vitest";
import { academicBaseUrlsFromEnv } from "./academic-providers.ts";
import { baseUrlFromEnv } from "./base-url-env.ts";
import { searchBaseUrlsFromEnv } from "./providers.ts";

describe("base URL overrides from the environment", () => {
  it("reads an http(s) URL, ignores a blank value, and names the variable of a bad one", () => {
    expect(baseUrlFromEnv({ X_BASE_URL: " http://127.0.0.1:9/x " }, "X_BASE_URL")).toBe(
      "http://127.0.0.1:9/x",
    );
    expect(baseUrlFromEnv({ X_BASE_URL: "  " }, "X_BASE_URL")).toBeUndefined();
    expect(() => baseUrlFromEnv({ X_BASE_URL: "file:///etc" }, "X_BASE_URL")).toThrow(
      'invalid X_BASE_URL: "file:///etc" (expected an http(s) URL)',
    );
  });

  it("serves both the web and the academic providers", () => {
    expect(searchBaseUrlsFromEnv({ TAVILY_BASE_URL: "http://127.0.0.1:1" })).toEqual({
      tavily: "http://127.0.0.1:1",
    });
    expect(academicBaseUrlsFromEnv({ OPENALEX_BASE_URL: "http://127.0.0.1:2" })).toEqual({
      openalex: "http://127.0.0.1:2",
    });
    expect(() => searchBaseUrlsFromEnv({ EXA_BASE_URL: "nope" })).toThrow(/invalid EXA_BASE_URL/);
  });
});
