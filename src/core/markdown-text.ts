/**
 * Markdown as a reader sees it, for text shown outside a Markdown renderer (hover titles,
 * diffs, the web UI's lists): backslash escapes resolved (`1\.` → `1.`; page text converted to
 * Markdown escapes what the page showed as emphasis, so `\*\*x\*\*` reads `x`), emphasis,
 * strike-through and code markers removed, links and images reduced to their text, heading and
 * quote markers dropped, character references read (`&lt;` → `<`, `&#39;` → `'`: a report escapes
 * raw HTML that way). Whitespace is collapsed. The result is plain text; the caller escapes it for
 * wherever it goes.
 */

const ESCAPABLE = /\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g;

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Character references read, in one pass (`&amp;lt;` reads `&lt;`); an unknown name stays as written. */
function decodeReferences(text: string): string {
  return text.replace(
    /&(?:#x([0-9a-f]{1,6})|#(\d{1,7})|([a-z]+));/gi,
    (whole, hex?: string, dec?: string, name?: string) => {
      if (name !== undefined) return ENTITIES[name.toLowerCase()] ?? whole;
      const cp = hex !== undefined ? Number.parseInt(hex, 16) : Number(dec);
      return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : "\ufffd";
    },
  );
}

/** The readable text of a Markdown fragment (see the module comment). */
export function readableText(markdown: string): string {
  let text = markdown.replace(ESCAPABLE, "$1");
  text = text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\((?:[^()\s]|\([^()\s]*\))+(?:\s+"[^"]*")?\)/g, "$1")
    .replace(/^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?)/gm, "")
    .replace(/`+([^`]+)`+/g, "$1")
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(?<![\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, "$1")
    .replace(/(?<![\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/g, "$1")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1");
  return decodeReferences(text).replace(/\s+/g, " ").trim();
}
