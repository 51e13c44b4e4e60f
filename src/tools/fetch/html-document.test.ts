import { describe, expect, it } from "vitest";
import { parseHtmlDocument } from "./html-document.ts";

describe("parseHtmlDocument", () => {
  it("gives the document the page's URL as its base, so relative links resolve against it", () => {
    const document = parseHtmlDocument(
      '<p><a href="../b/c?x=1">c</a></p>',
      "https://example.org/a/page.html",
    );
    expect(document.baseURI).toBe("https://example.org/a/page.html");
    expect((document.querySelector("a") as HTMLAnchorElement).href).toBe("https://example.org/b/c?x=1");
  });

  it("keeps the page's own <base href>, resolved against the page URL, as the only base", () => {
    const html = '<head><base href="/docs/"></head><body><a href="x.html">x</a></body>';
    const document = parseHtmlDocument(html, "https://example.org/a/page.html");
    expect(document.querySelectorAll("base")).toHaveLength(1);
    expect((document.querySelector("a") as HTMLAnchorElement).href).toBe("https://example.org/docs/x.html");
  });

  it("parses each page into its own document, never running scripts", () => {
    const first = parseHtmlDocument(
      "<title>One</title><script>document.title = 'ran'</script>",
      "https://a.test/",
    );
    const second = parseHtmlDocument("<title>Two</title>", "https://b.test/");
    expect(first.title).toBe("One");
    expect(second.title).toBe("Two");
    expect(first.baseURI).toBe("https://a.test/");
  });
});
