import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "./listen.ts";
import { createProject, type Project } from "./test-fixtures.ts";
import { SESSION_COOKIE, sessionValue } from "./web.ts";

let project: Project | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.close();
  server = project = undefined;
});

const LIMIT = 4096;
const TOKEN = "t".repeat(32);

async function start(options: Partial<Parameters<typeof startServer>[0]> = {}): Promise<RunningServer> {
  project = await createProject();
  server = await startServer({
    dossier: project.dossier,
    port: 0,
    token: TOKEN,
    maxBodyBytes: LIMIT,
    ...options,
  });
  return server;
}

/** A JSON body of exactly `size` bytes. */
const jsonOfSize = (size: number) => {
  const head = '{"question":"';
  return `${head}${"x".repeat(size - head.length - 2)}"}`;
};

/** The same bytes as a body without Content-Length (chunked, 1000 bytes a chunk). */
const chunked = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
      controller.close();
    },
  });

const cookie = () => `${SESSION_COOKIE}=${sessionValue(TOKEN)}`;

/** One route of each family that reads a body, with the headers it is called with. */
const ROUTES: [family: string, path: string, headers: () => Record<string, string>][] = [
  ["API runs", "/v1/runs", () => ({ authorization: `Bearer ${TOKEN}` })],
  ["tools", "/v1/search", () => ({ authorization: `Bearer ${TOKEN}` })],
  ["sign-in (no token)", "/auth/session", () => ({ "x-dossier-client": "web" })],
  ["UI sign-out", "/auth/signout", () => ({ "x-dossier-client": "web" })],
  ["UI estimate (cookie)", "/v1/estimate", () => ({ cookie: cookie(), "x-dossier-client": "web" })],
  ["UI page", "/runs/abc", () => ({})],
  [
    "MCP",
    "/mcp",
    () => ({ authorization: `Bearer ${TOKEN}`, accept: "application/json, text/event-stream" }),
  ],
];

const send = (path: string, headers: Record<string, string>, body: BodyInit) =>
  fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);

describe("request bodies — one limit in front of every route", () => {
  it("answers 413 for a body one byte over the limit on every route family, with and without Content-Length", async () => {
    await start();
    const over = new TextEncoder().encode(jsonOfSize(LIMIT + 1));
    for (const [family, path, headers] of ROUTES) {
      for (const [how, body] of [
        ["Content-Length", () => over],
        ["chunked", () => chunked(over)],
      ] as const) {
        const response = await send(path, headers(), body());
        expect(response.status, `${family} ${how}`).toBe(413);
        expect(await response.json()).toEqual({
          error: {
            code: "TOO_LARGE",
            message: `the request body is larger than the limit of ${LIMIT} bytes`,
          },
        });
      }
    }
    // A body at the limit is read.
    const at = await send("/auth/session", { "x-dossier-client": "web" }, jsonOfSize(LIMIT));
    expect(at.status).toBe(200);
    expect(await at.json()).toEqual({ signedIn: false, error: "invalid token" });
  });

  it("refuses a huge chunked body to the sign-in route as soon as it passes the limit, without reading it whole", async () => {
    await start();
    const total = 256 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, "x");
    const { status, written } = await new Promise<{ status: number; written: number }>((resolve, reject) => {
      let written = 0;
      let answered = false;
      const req = httpRequest(`${server!.url}/auth/session`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-dossier-client": "web" },
      });
      req.on("response", (res) => {
        answered = true;
        res.resume();
        resolve({ status: res.statusCode ?? 0, written });
        req.destroy();
      });
      req.on("error", (error) => {
        if (!answered) reject(error);
      });
      const pump = () => {
        while (!answered && written < total) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    // What was written before the answer is what the socket buffers held, not the body.
    expect(written).toBeLessThan(total / 8);
  });
});

describe("request bodies — UTF-8 only", () => {
  it("refuses a JSON body declared in another charset with 415 on every route family", async () => {
    await start();
    const utf16 = Buffer.from('{"question":"How do heat pumps cope with cold?"}', "utf16le");
    for (const [family, path, headers] of ROUTES.filter(([, p]) => p !== "/runs/abc")) {
      const response = await send(
        path,
        { ...headers(), "content-type": "application/json; charset=utf-16" },
        utf16,
      );
      expect(response.status, family).toBe(415);
      expect(await response.json(), family).toEqual({
        error: {
          code: "UNSUPPORTED_MEDIA_TYPE",
          message: 'the request body must be JSON in UTF-8, not in charset "utf-16"',
        },
      });
    }
    // UTF-8 however it is spelled is JSON's own encoding.
    for (const type of ["application/json; charset=UTF-8", 'application/json;charset="utf-8"']) {
      const response = await send(
        "/v1/estimate",
        { authorization: `Bearer ${TOKEN}`, "content-type": type },
        JSON.stringify({ question: "How do heat pumps cope with cold?", strategy: "hold" }),
      );
      expect(response.status, type).toBe(200);
    }
  });

  it("refuses bytes that are not UTF-8 with 400 instead of replacing them, and decodes UTF-8 split across chunks", async () => {
    await start();
    const invalid = Buffer.concat([
      Buffer.from('{"question":"How do heat pumps cope with the caf'),
      Buffer.from([0xe9]), // Latin-1 é: not UTF-8
      Buffer.from(' cold?","strategy":"hold"}'),
    ]);
    for (const [family, path, headers] of ROUTES.filter(([, p]) => p !== "/runs/abc")) {
      for (const body of [() => invalid, () => chunked(invalid)]) {
        const response = await send(path, headers(), body());
        expect(response.status, family).toBe(400);
        expect(await response.json(), family).toEqual({
          error: { code: "INPUT_INVALID", message: "the request body is not valid UTF-8" },
        });
      }
    }
    // A multi-byte character cut in two by the chunks arrives whole (the field name is echoed).
    const valid = new TextEncoder().encode('{"question":"How do heat pumps cope?","café東京":1}');
    const split = valid.indexOf(0xc3) + 1;
    const response = await send(
      "/v1/estimate",
      { authorization: `Bearer ${TOKEN}` },
      new ReadableStream({
        start(controller) {
          controller.enqueue(valid.slice(0, split));
          controller.enqueue(valid.slice(split));
          controller.close();
        },
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: "INPUT_INVALID", message: "unknown field: café東京" },
    });
  });
});
