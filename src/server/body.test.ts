/**
 * The body rules one at a time on a bare app (the loopback servers of `bodies.test.ts` check
 * them on every route family): which media types are JSON, how the charset is read, UTF-8 only,
 * the body handed on unchanged, JSON parsed before validation, and the size limit at its edge.
 */

import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bodySizeLimit, charsetOf, mediaType, readJsonBody, utf8JsonBodies } from "./body.ts";
import { errorResponse } from "./errors.ts";

/** An app that echoes the body it is handed, behind the middleware given. */
function echo(...middleware: Parameters<Hono["use"]>[1][]) {
  const app = new Hono();
  app.onError((error, c) => errorResponse(c, error));
  for (const m of middleware) app.use("*", m);
  app.post("/", async (c) => c.body(await c.req.arrayBuffer()));
  return app;
}

const post = (app: Hono, body: BodyInit | null, contentType?: string, extra: Record<string, string> = {}) =>
  app.request("/", {
    method: "POST",
    headers: { ...(contentType === undefined ? {} : { "content-type": contentType }), ...extra },
    body,
  });

const answer = async (response: Response) => ({ status: response.status, body: await response.text() });
const error = (code: string, message: string) => JSON.stringify({ error: { code, message } });

/** Latin-1 é in otherwise ASCII JSON: not UTF-8. */
const LATIN1 = new Uint8Array([
  ...new TextEncoder().encode('{"a":"caf'),
  0xe9,
  ...new TextEncoder().encode('"}'),
]);

describe("mediaType and charsetOf", () => {
  it("reads the media type lower-cased, without parameters or blanks, and no header as empty", () => {
    expect(mediaType(undefined)).toBe("");
    expect(mediaType("")).toBe("");
    expect(mediaType(" Application/JSON ; charset=utf-8")).toBe("application/json");
    expect(mediaType("text/plain")).toBe("text/plain");
  });

  it("reads the charset quoted or not, in any case, with blanks around '=', up to ';' or a blank", () => {
    expect(charsetOf(undefined)).toBeNull();
    expect(charsetOf("application/json")).toBeNull();
    expect(charsetOf("application/json; charset=UTF-16")).toBe("utf-16");
    expect(charsetOf("application/json;charset=utf-16le;x=y")).toBe("utf-16le");
    expect(charsetOf("application/json; CharSet = Latin1 ")).toBe("latin1");
    expect(charsetOf('application/json; charset="ISO-8859-1"; x=y')).toBe("iso-8859-1");
    expect(charsetOf('application/json; charset="a b"')).toBe("a b");
    expect(charsetOf("application/json; charset=")).toBe("");
    expect(charsetOf('application/json; charset=""')).toBe("");
    // A charset that is not a parameter of its own is none.
    expect(charsetOf("application/json; xcharset=utf-16")).toBeNull();
    expect(charsetOf("application/json charset=utf-16")).toBeNull();
  });
});

describe("utf8JsonBodies", () => {
  const app = echo(utf8JsonBodies);

  it("hands a UTF-8 JSON body on unchanged, whatever JSON media type or UTF-8 spelling declares it", async () => {
    const text = '{"q":"café 東京"}';
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=UTF8",
      "application/problem+json",
      "application/vnd.dossier-v1.2+json",
      "APPLICATION/JSON",
    ])
      expect(await answer(await post(app, text, type)), type).toEqual({ status: 200, body: text });
  });

  it("refuses another declared charset with 415 and bytes that are not UTF-8 with 400", async () => {
    for (const charset of ["utf-16", "latin1", "utf-8x", ""])
      expect(await answer(await post(app, "{}", `application/json; charset=${charset}`)), charset).toEqual({
        status: 415,
        body: error(
          "UNSUPPORTED_MEDIA_TYPE",
          `the request body must be JSON in UTF-8, not in charset "${charset}"`,
        ),
      });
    for (const type of ["application/json", "application/merge-patch+json"])
      expect(await answer(await post(app, LATIN1, type)), type).toEqual({
        status: 400,
        body: error("INPUT_INVALID", "the request body is not valid UTF-8"),
      });
  });

  it("leaves bodies that are not JSON, and requests without a body, to their routes", async () => {
    for (const type of [
      "text/plain; charset=latin1",
      "application/jsonx",
      "application/+json",
      "application/x_y+json",
      "xapplication/json",
      "text/json",
      undefined,
    ]) {
      const response = await post(app, LATIN1, type);
      expect(response.status, String(type)).toBe(200);
      expect(new Uint8Array(await response.arrayBuffer()), String(type)).toEqual(LATIN1);
    }
    expect(await answer(await post(app, null, "application/json; charset=utf-16"))).toEqual({
      status: 200,
      body: "",
    });
  });
});

describe("readJsonBody", () => {
  const app = echo(readJsonBody);

  it("parses the body of a JSON media type and hands it on", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "application/ld+json"])
      expect(await answer(await post(app, '{"a":[1]}', type)), type).toEqual({
        status: 200,
        body: '{"a":[1]}',
      });
  });

  it("answers 400 before the route when the request does not say it is JSON or the body is not JSON", async () => {
    for (const type of [undefined, "text/plain", "application/jsonx", "xapplication/json"])
      expect(await answer(await post(app, "{}", type)), String(type)).toEqual({
        status: 400,
        body: error("INPUT_INVALID", "the request body must be JSON (Content-Type: application/json)"),
      });
    for (const text of ["{not json", "", '{"a":1'])
      expect(await answer(await post(app, text, "application/json")), text).toEqual({
        status: 400,
        body: error("INPUT_INVALID", "the request body is not valid JSON"),
      });
  });
});

describe("bodySizeLimit", () => {
  it("reads a body of exactly the limit and answers 413 to one byte more, declared or streamed", async () => {
    const app = echo(bodySizeLimit(10));
    expect(await answer(await post(app, "x".repeat(10), "text/plain"))).toEqual({
      status: 200,
      body: "x".repeat(10),
    });
    const tooLarge = {
      status: 413,
      body: error("TOO_LARGE", "the request body is larger than the limit of 10 bytes"),
    };
    expect(await answer(await post(app, "x".repeat(11), "text/plain"))).toEqual(tooLarge);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 11; i += 1) controller.enqueue(new TextEncoder().encode("x"));
        controller.close();
      },
    });
    expect(
      await answer(
        await app.request("/", { method: "POST", body: stream, duplex: "half" } as RequestInit & {
          duplex: string;
        }),
      ),
    ).toEqual(tooLarge);
  });
});
