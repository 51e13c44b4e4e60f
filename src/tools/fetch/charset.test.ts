import { describe, expect, it } from "vitest";
import { encodeLegacy } from "../../../test/fake-web/index.ts";
import { canonicalCharset, decodeText, detectCharset, headerCharset, metaCharset } from "./charset.ts";

const latin = (text: string) => new TextEncoder().encode(text);

describe("charset detection", () => {
  it("reads the header's charset parameter, quoted or not", () => {
    expect(headerCharset("text/html; charset=ISO-8859-1")).toBe("windows-1252");
    expect(headerCharset('text/html; Charset="Shift_JIS"')).toBe("shift_jis");
    expect(headerCharset("text/html; charset=nonsense")).toBeNull();
    expect(headerCharset("text/html")).toBeNull();
  });

  it("reads <meta charset> and http-equiv declarations", () => {
    expect(metaCharset(latin('<html><head><meta charset="gbk"></head>'))).toBe("gbk");
    expect(metaCharset(latin('<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">'))).toBe(
      "euc-kr",
    );
    expect(metaCharset(latin('<meta charset="utf-16">'))).toBe("utf-8");
    expect(metaCharset(latin("<p>no declaration</p>"))).toBeNull();
  });

  it("lets a BOM win over the header", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...latin("café")]);
    expect(detectCharset(bytes, { contentType: "text/plain; charset=windows-1252" })).toEqual({
      charset: "utf-8",
      source: "bom",
    });
    expect(decodeText(bytes).text).toBe("café");
  });

  it("decodes windows-1252 declared in the header", () => {
    const text = "Prix: 3 € — « déjà » “cher”";
    const decoded = decodeText(encodeLegacy(text, "windows-1252"), {
      contentType: "text/html; charset=windows-1252",
    });
    expect(decoded).toEqual({ text, charset: "windows-1252", source: "header" });
  });

  it("decodes a meta-declared charset for HTML only", () => {
    const html = '<meta charset="windows-1252"><p>garçon</p>';
    const bytes = encodeLegacy(html, "windows-1252");
    expect(decodeText(bytes, { html: true })).toMatchObject({ text: html, source: "meta" });
    expect(detectCharset(bytes, { html: false }).source).not.toBe("meta");
  });

  it("corrects a header that claims UTF-8 for bytes that are not", () => {
    const text = "東京の天気は晴れのち曇り、最高気温は二十五度の予想です。桜の開花は平年より早い見込みです。";
    const decoded = decodeText(encodeLegacy(text, "shift_jis"), { contentType: "text/plain; charset=utf-8" });
    expect(decoded).toEqual({ text, charset: "shift_jis", source: "detected" });
  });

  it("takes valid UTF-8 as UTF-8 and falls back to UTF-8 for plain ASCII", () => {
    expect(detectCharset(latin("naïve"))).toEqual({ charset: "utf-8", source: "utf8-valid" });
    expect(detectCharset(latin("ascii"))).toEqual({ charset: "utf-8", source: "utf8-valid" });
  });

  it("knows the labels of the platform decoder", () => {
    expect(canonicalCharset("latin1")).toBe("windows-1252");
    expect(canonicalCharset("sjis")).toBe("shift_jis");
    expect(canonicalCharset("x-unknown")).toBeNull();
  });
});
