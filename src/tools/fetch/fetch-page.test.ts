import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_WEB_TEXT, type FakeWeb, startFakeWeb } from "../../../test/fake-web/index.ts";
import { instantClock } from "../../../test/scripted/clocks.ts";
import { memoryStore } from "../../../test/scripted/harness.ts";
import type { DossierError } from "../../core/errors.ts";
import type { EventInput } from "../../core/events.ts";
import { ToolGateway } from "../gateway.ts";
import { type FetchPageOptions, fetchPage, fetchPageTool } from "./fetch-page.ts";
import { pageMarker } from "./pdf-text.ts";

let web: FakeWeb;
beforeAll(async () => {
  web = await startFakeWeb();
});
afterAll(() => web.close());

const allowed: FetchPageOptions = { allowPrivateNetwork: true };
const hitsOf = (path: string) => web.requests.filter((r) => r.path === path).length;

describe("fetchPage", () => {
  it("extracts an article's main text as Markdown and drops the boilerplate", async () => {
    const page = await fetchPage(web.url("/article"), allowed);
    expect(page).toMatchObject({
      url: web.url("/article"),
      finalUrl: web.url("/article"),
      contentType: "html",
      declaredContentType: "text/html",
      charset: "utf-8",
      truncated: false,
      redirects: [],
      lang: "en",
    });
    expect(page.title).toContain(FAKE_WEB_TEXT.articleTitle);
    expect(page.text).toContain(FAKE_WEB_TEXT.articleSentence);
    expect(page.text).not.toContain(web.url(FAKE_WEB_TEXT.articleLinkPath));
    expect(page.links).toContainEqual({
      text: "2025 project report",
      url: web.url(FAKE_WEB_TEXT.articleLinkPath),
    });
    for (const phrase of FAKE_WEB_TEXT.boilerplate) expect(page.text).not.toContain(phrase);
    expect(page.bytes).toBeGreaterThan(page.text.length);
    expect(page.reason).toBeUndefined();
  });

  it("reads a PDF with page numbers", async () => {
    const page = await fetchPage(web.url("/doc.pdf"), allowed);
    expect(page.contentType).toBe("pdf");
    expect(page.title).toBe(FAKE_WEB_TEXT.pdfTitle);
    expect(page.pages).toEqual(FAKE_WEB_TEXT.pdfPages.map((text, i) => ({ page: i + 1, text })));
    expect(page.text).toBe(FAKE_WEB_TEXT.pdfPages.map((t, i) => `${pageMarker(i + 1)}\n\n${t}`).join("\n\n"));
  });

  it("returns empty text with a reason for a PDF without a text layer", async () => {
    const page = await fetchPage(web.url("/scanned.pdf"), allowed);
    expect(page).toMatchObject({
      contentType: "pdf",
      text: "",
      reason: "no-text-layer",
      pages: [{ page: 1, text: "" }],
    });
    expect(page.title).toBe("scanned.pdf");
  });

  it("fails with UNREADABLE for a corrupt PDF and for an image", async () => {
    await expect(fetchPage(web.url("/corrupt.pdf"), allowed)).rejects.toMatchObject({ code: "UNREADABLE" });
    await expect(fetchPage(web.url("/image.png"), allowed)).rejects.toMatchObject({
      code: "UNREADABLE",
      details: { reason: "unsupported-content-type", contentType: "image/png" },
    });
  });

  it("follows a redirect chain and reports it", async () => {
    const page = await fetchPage(web.url("/chain/1"), allowed);
    expect(page.url).toBe(web.url("/chain/1"));
    expect(page.finalUrl).toBe(web.url("/article?from=chain"));
    expect(page.redirects).toHaveLength(3);
    expect(page.text).toContain(FAKE_WEB_TEXT.articleSentence);
  });

  it("fails on a 404 with the status", async () => {
    const error = (await fetchPage(web.url("/missing"), allowed).catch((e) => e)) as DossierError;
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", retryable: false, details: { status: 404 } });
  });

  it.each([
    ["/cp1252", "windows-1252", FAKE_WEB_TEXT.cp1252Title, FAKE_WEB_TEXT.cp1252Sentence],
    ["/cp1252-meta", "windows-1252", FAKE_WEB_TEXT.cp1252Title, FAKE_WEB_TEXT.cp1252Sentence],
    ["/sjis", "shift_jis", FAKE_WEB_TEXT.sjisTitle, FAKE_WEB_TEXT.sjisSentence],
    ["/sjis-meta", "shift_jis", FAKE_WEB_TEXT.sjisTitle, FAKE_WEB_TEXT.sjisSentence],
  ])("decodes the non-UTF-8 page %s (%s)", async (path, charset, title, sentence) => {
    const page = await fetchPage(web.url(path), allowed);
    expect(page.charset).toBe(charset);
    expect(page.title).toBe(title);
    expect(page.text).toContain(sentence);
    expect(page.text).not.toContain("\uFFFD");
  });

  it("treats HTML served as text/plain as HTML", async () => {
    const page = await fetchPage(web.url("/lying"), allowed);
    expect(page.contentType).toBe("html");
    expect(page.declaredContentType).toBe("text/plain");
    expect(page.text).toContain(FAKE_WEB_TEXT.articleSentence);
    expect(page.text).not.toContain("<p>");
    for (const phrase of FAKE_WEB_TEXT.boilerplate) expect(page.text).not.toContain(phrase);
  });

  it("treats a PDF served as text/html as a PDF", async () => {
    const page = await fetchPage(web.url("/pdf-as-html"), allowed);
    expect(page.contentType).toBe("pdf");
    expect(page.pages).toHaveLength(3);
  });

  it("keeps plain text and Markdown as they are", async () => {
    const text = await fetchPage(web.url("/plain.txt"), allowed);
    expect(text).toMatchObject({ contentType: "text", text: FAKE_WEB_TEXT.plainText, title: "plain.txt" });
    const md = await fetchPage(web.url("/notes.md"), allowed);
    expect(md).toMatchObject({ contentType: "markdown", text: FAKE_WEB_TEXT.markdown, title: "Field Notes" });
    const named = await fetchPage(web.url("/readme.md"), allowed);
    expect(named).toMatchObject({ contentType: "markdown", declaredContentType: "text/plain" });
  });

  it("marks an empty page with the reason empty", async () => {
    const page = await fetchPage(web.url("/empty"), allowed);
    expect(page).toMatchObject({ contentType: "html", text: "", reason: "empty" });
  });
});

describe("fetchPageTool", () => {
  function gateway(events: EventInput[], extra: ConstructorParameters<typeof ToolGateway>[0] = {}) {
    return new ToolGateway({
      clock: instantClock(),
      random: () => 0.5,
      emit: (e) => events.push(e),
      ...extra,
    });
  }

  it("returns the page as a successful tool result with a note", async () => {
    const events: EventInput[] = [];
    const result = await fetchPageTool(gateway(events), web.url("/chain/1"), allowed);
    expect(result.ok).toBe(true);
    expect(result.provider).toBe("http");
    expect(events.map((e) => e.type)).toEqual(["tool-start", "tool-end"]);
    expect(events[0]).toMatchObject({
      tool: "fetch_page",
      args: { url: web.url("/chain/1"), allowPrivateNetwork: true },
    });
    expect(events[1]).toMatchObject({ ok: true, note: "html, 3 redirect(s)" });
  });

  it("returns an SSRF refusal as a structured failure, without a request", async () => {
    const before = web.requests.length;
    const events: EventInput[] = [];
    const result = await fetchPageTool(gateway(events), web.url("/article"));
    expect(result).toMatchObject({ ok: false, error: { code: "NETWORK_REFUSED", retryable: false } });
    expect(!result.ok && result.error.message).toContain("127.0.0.1");
    expect(web.requests.length).toBe(before);
    expect(events[1]).toMatchObject({ type: "tool-end", ok: false, error: { code: "NETWORK_REFUSED" } });
  });

  it("returns a timeout as a structured, retryable failure after the gateway's retries", async () => {
    const before = hitsOf("/hang");
    const result = await fetchPageTool(gateway([]), web.url("/hang"), { ...allowed, timeoutMs: 30 });
    expect(result).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: true } });
    expect(hitsOf("/hang") - before).toBe(3);
  });

  it("returns a DNS failure as a structured failure, not retried", async () => {
    let lookups = 0;
    const result = await fetchPageTool(gateway([]), "http://gone.test/", {
      resolve: async () => {
        lookups++;
        throw Object.assign(new Error("getaddrinfo ENOTFOUND gone.test"), { code: "ENOTFOUND" });
      },
    });
    expect(result).toMatchObject({ ok: false, error: { code: "NETWORK_ERROR", retryable: false } });
    expect(!result.ok && result.error.message).toContain("DNS lookup of gone.test failed");
    expect(lookups).toBe(1);
  });

  it("refuses a blocked port (127.0.0.1:1, a redirect to :25) in one attempt, without retries", async () => {
    let requests = 0;
    const counting: FetchPageOptions["fetch"] = (input, init) => {
      requests++;
      return undiciFetch(input, init);
    };
    const events: EventInput[] = [];
    const direct = await fetchPageTool(gateway(events), "http://127.0.0.1:1/", {
      ...allowed,
      fetch: counting,
    });
    expect(direct).toMatchObject({
      ok: false,
      error: { code: "NETWORK_REFUSED", retryable: false, message: expect.stringContaining("port 1") },
    });
    expect(requests).toBe(0);
    expect(events.map((e) => e.type)).toEqual(["tool-start", "tool-end"]);

    const redirected = await fetchPageTool(
      gateway([]),
      web.url(`/redirect?to=${encodeURIComponent("http://127.0.0.1:25/")}`),
      { ...allowed, fetch: counting },
    );
    expect(redirected).toMatchObject({ ok: false, error: { code: "NETWORK_REFUSED", retryable: false } });
    // The redirect was asked for once; the blocked target never.
    expect(requests).toBe(1);
  });

  it("still retries a transient failure (a refused connection) as before", async () => {
    let requests = 0;
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await fetchPageTool(gateway([]), `http://127.0.0.1:${port}/`, {
      ...allowed,
      fetch: (input, init) => {
        requests++;
        return undiciFetch(input, init);
      },
    });
    expect(result).toMatchObject({ ok: false, error: { code: "NETWORK_ERROR", retryable: true } });
    expect(requests).toBe(3);
  });

  it("returns a 50 MB page as a structured TOO_LARGE failure", async () => {
    const result = await fetchPageTool(gateway([]), web.url("/huge"), allowed);
    expect(result).toMatchObject({ ok: false, error: { code: "TOO_LARGE", retryable: false } });
    expect(!result.ok && result.error.message).toContain("size limit of 10485760 bytes");
  });

  it("never serves a page fetched with the allow flag from the cache to a caller without it", async () => {
    const store = memoryStore();
    try {
      const events: EventInput[] = [];
      const gw = gateway(events, { cache: store.cache });
      expect((await fetchPageTool(gw, web.url("/plain.txt"), allowed)).ok).toBe(true);
      expect((await fetchPageTool(gw, web.url("/plain.txt"), allowed)).ok && events.at(-1)).toMatchObject({
        cached: true,
      });
      const refused = await fetchPageTool(gw, web.url("/plain.txt"));
      expect(refused).toMatchObject({ ok: false, error: { code: "NETWORK_REFUSED" } });
    } finally {
      store.close();
    }
  });
});
