import { describe, expect, it } from "vitest";
import { badCharRatio, decodeFileText } from "./decode-text.ts";
import { pseudoRandomBytes } from "./test-fixtures.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("decodeFileText", () => {
  it("decodes valid UTF-8", () => {
    expect(decodeFileText(bytes("héllo 世界\n"))).toEqual({
      ok: true,
      text: "héllo 世界\n",
      encoding: "utf-8",
    });
  });

  it("honours a UTF-8 or UTF-16 byte-order mark", () => {
    expect(decodeFileText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toMatchObject({
      ok: true,
      text: "hi",
    });
    const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]);
    expect(decodeFileText(utf16)).toEqual({ ok: true, text: "hi", encoding: "utf-16le" });
  });

  it("refuses a file with a NUL byte in its first 8 KB", () => {
    expect(decodeFileText(new Uint8Array([0x61, 0x62, 0x00, 0x63]))).toEqual({
      ok: false,
      reason: "binary",
      detail: "NUL byte at offset 2",
    });
  });

  it("refuses random bytes without NULs", () => {
    const data = pseudoRandomBytes(4096, 7).map((b) => (b === 0 ? 1 : b));
    expect(decodeFileText(data)).toMatchObject({ ok: false, reason: "binary" });
  });

  it("decodes a legacy single-byte encoding detected by chardet", () => {
    const latin1 = Uint8Array.from(
      "Le café était très agréable, près de la fenêtre où l'été dure longtemps. ".repeat(4),
      (c) => c.charCodeAt(0),
    );
    const decoded = decodeFileText(latin1);
    expect(decoded.ok).toBe(true);
    if (decoded.ok) {
      expect(decoded.encoding).toMatch(/^(windows-1252|iso-8859-1)$/);
      expect(decoded.text.startsWith("Le café était très agréable")).toBe(true);
    }
  });

  it("uses the charset an HTML page declares when it is not UTF-8", () => {
    const html = Uint8Array.from('<meta charset="windows-1252"><p>na\xefve caf\xe9</p>', (c) =>
      c.charCodeAt(0),
    );
    expect(decodeFileText(html, { html: true })).toMatchObject({
      ok: true,
      encoding: "windows-1252",
      text: '<meta charset="windows-1252"><p>naïve café</p>',
    });
  });

  it("measures the share of control and replacement characters", () => {
    expect(badCharRatio("abcd")).toBe(0);
    expect(badCharRatio("ab\u0001\uFFFD")).toBe(0.5);
    expect(badCharRatio("tab\tnew\nline\r")).toBe(0);
  });
});
