/**
 * An in-process web server for fetch tests, on 127.0.0.1 and a free port: an article with
 * boilerplate, redirect chains, errors, legacy-charset pages, a page whose content-type lies,
 * PDFs (text, no text layer, corrupt), a 50 MB body generated on the fly, and endpoints that
 * never answer. Every request is logged.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeLegacy } from "./legacy-encoding.ts";
import {
  articleHtml,
  cp1252Html,
  EMPTY_HTML,
  FAKE_WEB_TEXT,
  NOT_FOUND_HTML,
  PNG_BYTES,
  sjisHtml,
} from "./pages.ts";
import { CORRUPT_PDF, makeScannedPdf, makeTextPdf } from "./pdf-fixtures.ts";

/** Size of the huge bodies: 50 MB. */
export const HUGE_BODY_BYTES = 50 * 1024 * 1024;

/** A request the fake web received. */
export interface FakeWebRequest {
  method: string;
  /** Path with query string. */
  path: string;
  /** The Host header. */
  host: string;
}

/** A handler for an extra route. */
export type FakeWebHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Options of {@link startFakeWeb}. */
export interface FakeWebOptions {
  /** Extra routes by exact path (checked first). */
  routes?: Record<string, FakeWebHandler>;
}

/** A running fake web. */
export interface FakeWeb {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  /** The absolute URL of `path` on this server. */
  url(path: string): string;
  /** Requests received, in order. */
  requests: FakeWebRequest[];
  /** Bytes of the huge bodies written to sockets so far. */
  hugeBytesSent(): number;
  /** Stops the server and drops every open connection. */
  close(): Promise<void>;
}

type Body = string | Uint8Array;

function send(
  res: ServerResponse,
  status: number,
  contentType: string | null,
  body: Body,
  extra: Record<string, string> = {},
): void {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  res.writeHead(status, {
    ...(contentType ? { "content-type": contentType } : {}),
    "content-length": String(bytes.byteLength),
    ...extra,
  });
  res.end(bytes);
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, "content-length": "0" });
  res.end();
}

/** Starts the fake web. */
export async function startFakeWeb(options: FakeWebOptions = {}): Promise<FakeWeb> {
  const [pdf, scanned] = await Promise.all([
    makeTextPdf(FAKE_WEB_TEXT.pdfPages, FAKE_WEB_TEXT.pdfTitle),
    makeScannedPdf(),
  ]);
  const requests: FakeWebRequest[] = [];
  const pending = new Set<ServerResponse>();
  let hugeSent = 0;
  let origin = "";

  const streamHuge = async (res: ServerResponse, declareLength: boolean) => {
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      ...(declareLength ? { "content-length": String(HUGE_BODY_BYTES) } : {}),
    });
    const chunk = Buffer.from(`<p>${"x".repeat(65_536 - 8)}</p>\n`, "utf8");
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    for (let sent = 0; sent < HUGE_BODY_BYTES && !closed; sent += chunk.byteLength) {
      const ok = res.write(chunk);
      hugeSent += chunk.byteLength;
      if (!ok) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
    }
    if (!closed) res.end();
  };

  const routes: Record<string, FakeWebHandler> = {
    "/article": (_req, res) => send(res, 200, "text/html; charset=utf-8", articleHtml()),
    "/chain/1": (_req, res) => redirect(res, 301, `${origin}/chain/2`),
    "/chain/2": (_req, res) => redirect(res, 302, "3"),
    "/chain/3": (_req, res) => redirect(res, 303, "/article?from=chain"),
    "/redirect-no-location": (_req, res) => redirect(res, 302, ""),
    "/missing": (_req, res) => send(res, 404, "text/html", NOT_FOUND_HTML),
    "/unavailable": (_req, res) => send(res, 503, "text/plain", "try later", { "retry-after": "7" }),
    "/cp1252": (_req, res) =>
      send(res, 200, "text/html; charset=windows-1252", encodeLegacy(cp1252Html(false), "windows-1252")),
    "/cp1252-meta": (_req, res) =>
      send(res, 200, "text/html", encodeLegacy(cp1252Html(true), "windows-1252")),
    "/sjis": (_req, res) => send(res, 200, "text/html", encodeLegacy(sjisHtml(false), "shift_jis")),
    "/sjis-meta": (_req, res) => send(res, 200, "text/html", encodeLegacy(sjisHtml(true), "shift_jis")),
    "/lying": (_req, res) => send(res, 200, "text/plain; charset=utf-8", articleHtml()),
    "/pdf-as-html": (_req, res) => send(res, 200, "text/html", pdf),
    "/plain.txt": (_req, res) => send(res, 200, "text/plain; charset=utf-8", FAKE_WEB_TEXT.plainText),
    "/notes.md": (_req, res) => send(res, 200, "text/markdown; charset=utf-8", FAKE_WEB_TEXT.markdown),
    "/readme.md": (_req, res) => send(res, 200, "text/plain", FAKE_WEB_TEXT.markdown),
    "/image.png": (_req, res) => send(res, 200, "image/png", PNG_BYTES),
    "/empty": (_req, res) => send(res, 200, "text/html", EMPTY_HTML),
    "/doc.pdf": (_req, res) => send(res, 200, "application/pdf", pdf),
    "/scanned.pdf": (_req, res) => send(res, 200, "application/pdf", scanned),
    "/corrupt.pdf": (_req, res) => send(res, 200, "application/pdf", CORRUPT_PDF),
    "/huge": (_req, res) => streamHuge(res, false),
    "/huge-declared": (_req, res) => streamHuge(res, true),
    "/hang": (_req, res) => {
      pending.add(res);
    },
    "/stall-body": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html", "content-length": "100000" });
      res.write("<html><body><p>the rest never comes");
      pending.add(res);
    },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake-web.invalid");
    requests.push({
      method: req.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      host: req.headers.host ?? "",
    });
    req.resume();
    const handler = options.routes?.[url.pathname] ?? routes[url.pathname] ?? dynamic(url);
    if (!handler) {
      send(res, 404, "text/html", NOT_FOUND_HTML);
      return;
    }
    void Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });

  /** Routes with parameters: `/loop/<n>` (endless redirects) and `/redirect?to=<url>&status=<s>`. */
  const dynamic = (url: URL): FakeWebHandler | undefined => {
    const loop = /^\/loop\/(\d+)$/.exec(url.pathname);
    if (loop) return (_req, res) => redirect(res, 302, `/loop/${Number(loop[1]) + 1}`);
    if (url.pathname === "/redirect") {
      const to = url.searchParams.get("to") ?? "/";
      const status = Number(url.searchParams.get("status") ?? "302");
      return (_req, res) => redirect(res, status, to);
    }
    return undefined;
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (path) => `${origin}${path.startsWith("/") ? path : `/${path}`}`,
    requests,
    hugeBytesSent: () => hugeSent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of pending) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
