/**
 * Conditional fetches (refresh): validators go out as If-None-Match / If-Modified-Since, a 304
 * comes back as a page marked not modified (never as an error, never from the cache), the
 * answer's ETag and Last-Modified are kept, and a 304 without validators sent stays an error.
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchPage } from "./fetch-page.ts";
import { httpFetch } from "./http-fetch.ts";

const seen: IncomingMessage["headers"][] = [];
const ETAG = '"v1"';
const MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT";
const server = createServer((req, res) => {
  seen.push(req.headers);
  if (req.headers["if-none-match"] === ETAG || req.headers["if-modified-since"] === MODIFIED) {
    res.writeHead(304, { etag: ETAG });
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": "text/html", etag: ETAG, "last-modified": MODIFIED });
  res.end(
    "<html><head><title>T</title></head><body><article><p>Some text of the page here.</p></article></body></html>",
  );
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/p`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("conditional fetch", () => {
  it("keeps the validators of a full answer and sends none unasked", async () => {
    const page = await fetchPage(url, { allowPrivateNetwork: true });
    expect(page).toMatchObject({ etag: ETAG, lastModified: MODIFIED, contentType: "html" });
    expect(page.notModified).toBeUndefined();
    expect(seen.at(-1)!["if-none-match"]).toBeUndefined();
  });

  it("sends If-None-Match and If-Modified-Since and reads a 304 as not modified", async () => {
    const page = await fetchPage(url, {
      allowPrivateNetwork: true,
      conditional: { etag: ETAG, lastModified: MODIFIED },
    });
    expect(page).toMatchObject({ notModified: true, text: "", etag: ETAG });
    expect(seen.at(-1)).toMatchObject({ "if-none-match": ETAG, "if-modified-since": MODIFIED });
    const byDate = await fetchPage(url, {
      allowPrivateNetwork: true,
      conditional: { lastModified: MODIFIED },
    });
    expect(byDate.notModified).toBe(true);
  });

  it("answers in full when the validators no longer match", async () => {
    const page = await fetchPage(url, { allowPrivateNetwork: true, conditional: { etag: '"v0"' } });
    expect(page.notModified).toBeUndefined();
    expect(page.text).toContain("Some text of the page here.");
  });

  it("treats a 304 it did not ask for as the error it is", async () => {
    const plain = createServer((_req, res) => {
      res.writeHead(304);
      res.end();
    });
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const at = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
    await expect(httpFetch(at, { allowPrivateNetwork: true })).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  });
});
