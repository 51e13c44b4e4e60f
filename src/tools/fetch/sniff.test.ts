import { describe, expect, it } from "vitest";
import { looksLikeHtml, mediaType, sniffContent } from "./sniff.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("sniffContent", () => {
  it("trusts the bytes over a lying declared type", () => {
    expect(sniffContent(bytes("<!DOCTYPE html><html><body>x</body></html>"), "text/plain")).toEqual({
      kind: "html",
      declared: "text/plain",
      mismatch: true,
    });
    expect(sniffContent(bytes("%PDF-1.7\n..."), "text/html; charset=utf-8")).toEqual({
      kind: "pdf",
      declared: "text/html",
      mismatch: true,
    });
    expect(sniffContent(bytes("<html><body>Not found</body></html>"), "application/pdf")).toMatchObject({
      kind: "html",
      mismatch: true,
    });
  });

  it("recognises HTML from its first tag after whitespace and a BOM", () => {
    expect(looksLikeHtml(bytes("\uFEFF\n  <html lang=en>"))).toBe(true);
    expect(looksLikeHtml(bytes("<!-- c --><p>x</p>"))).toBe(true);
    expect(looksLikeHtml(bytes('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'))).toBe(
      true,
    );
    expect(looksLikeHtml(bytes("<bogus>"))).toBe(false);
    expect(looksLikeHtml(bytes("a < b and <p> later"))).toBe(false);
  });

  it("keeps declared and URL-named Markdown as Markdown even when it starts with HTML", () => {
    expect(sniffContent(bytes('<p align="center">logo</p>\n# Title'), "text/markdown").kind).toBe("markdown");
    expect(sniffContent(bytes("# Notes"), "text/plain", "https://example.org/docs/README.md").kind).toBe(
      "markdown",
    );
    expect(sniffContent(bytes("# Notes"), "text/plain", "https://example.org/notes.txt").kind).toBe("text");
  });

  it("takes declared HTML and textual types when the bytes carry no marker", () => {
    expect(sniffContent(bytes("just words"), "text/html").kind).toBe("html");
    expect(sniffContent(bytes('{"a":1}'), "application/json").kind).toBe("text");
    expect(sniffContent(bytes("words"), undefined).kind).toBe("text");
    expect(sniffContent(bytes("words"), "application/octet-stream").kind).toBe("text");
  });

  it("calls images, archives and NUL-laden bodies binary", () => {
    expect(sniffContent(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d]), "image/png").kind).toBe("binary");
    expect(sniffContent(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0]), "text/plain")).toMatchObject({
      kind: "binary",
      mismatch: true,
    });
    expect(sniffContent(new Uint8Array([0x41, 0, 0x42]), undefined).kind).toBe("binary");
    expect(sniffContent(bytes("plain words"), "video/mp4").kind).toBe("binary");
  });

  it("reads UTF-16 text with a BOM as text, not binary", () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x3c, 0, 0x68, 0, 0x74, 0, 0x6d, 0, 0x6c, 0, 0x3e, 0]);
    expect(sniffContent(utf16, "").kind).toBe("html");
  });

  it("parses media types", () => {
    expect(mediaType(" Text/HTML ; charset=UTF-8")).toBe("text/html");
    expect(mediaType(undefined)).toBe("");
  });
});
