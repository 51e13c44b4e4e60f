import { describe, expect, it } from "vitest";
import { redactUrl, redactUrlsIn } from "./url-redact.ts";

describe("URL redaction", () => {
  it("masks user-info and secret parameters and leaves other URLs untouched", () => {
    expect(redactUrl("http://user:pa55@search.local:8080/search?q=x")).toBe(
      "http://***@search.local:8080/search?q=x",
    );
    expect(redactUrl("https://api.example.test/v1?api_key=abc&q=1")).toBe(
      "https://api.example.test/v1?api_key=***&q=1",
    );
    expect(redactUrl("https://example.test/a?b=c")).toBe("https://example.test/a?b=c");
    expect(redactUrl("not a url //u:p@x")).toBe("not a url //***@x");
  });

  it("masks user-info inside free text such as error messages", () => {
    expect(redactUrlsIn("GET http://u:secret@h/x failed; retry https://a:b@c/d")).toBe(
      "GET http://***@h/x failed; retry https://***@c/d",
    );
    expect(redactUrlsIn("mail me at a@b.test")).toBe("mail me at a@b.test");
  });
});
