/**
 * Untrusted text stays text in a Markdown report. Model prose, titles, snippets and page text
 * reach the report as Markdown; before the report is stored, {@link safeMarkdown} makes sure no
 * viewer can turn any of it into live content:
 *
 * - raw HTML (tags, comments, declarations) is escaped (`<` becomes `&lt;`) outside code spans
 *   and fenced code blocks, so it reads as text; autolinks to http(s) and mailto targets stay;
 * - links, images and link reference definitions keep only `http://`, `https://`, `mailto:` and
 *   in-document (`#…`) targets; any other target (`javascript:`, `data:`, `vbscript:`, relative,
 *   mixed-case, entity-encoded or with whitespace and control characters inside the scheme) is
 *   turned into plain text showing what was written;
 * - terminal escape sequences and control characters are removed (tabs and newlines kept).
 *
 * Headings, lists, tables, emphasis, code and numbered citations are left as written. The
 * result is checked with the Markdown parser the HTML renderer uses; if that parser still finds
 * markup the scan missed, a stricter pass runs, and as a last resort every `<` and `[` is written
 * as an entity. The function is idempotent. Pure, no I/O.
 */

import type { Marked, Token, TokensList } from "marked";
import { lazyModule } from "./lazy-module.ts";
import { stripControlChars } from "./terminal-text.ts";

/** marked, loaded on first use; the GFM parser is made then. */
const marked = lazyModule<typeof import("marked")>("marked");
let gfm: Marked | undefined;
function parser(): Marked {
  gfm ??= new (marked().Marked)({ gfm: true });
  return gfm;
}

/** Characters a browser ignores or strips inside a URL scheme, plus backslashes. */
const INVISIBLE =
  /[\x00-\x20\x7f-\xa0\xad\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\u3164\ufeff\\]/gu;

/** The targets a link or image may keep. */
const ALLOWED_TARGET = /^(?:https?:\/\/|mailto:|#)/;

/** Named entities that could spell out a scheme; any other named entity stays encoded (and fails). */
const NAMED: Record<string, string> = {
  amp: "&",
  colon: ":",
  sol: "/",
  bsol: "\\",
  num: "#",
  tab: "\t",
  newline: "\n",
  nbsp: "\u00a0",
  lpar: "(",
  rpar: ")",
  period: ".",
  commat: "@",
  quest: "?",
  equals: "=",
  semi: ";",
  comma: ",",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

function decodeEntities(text: string): string {
  return text.replace(
    /&#x([0-9a-f]+);?|&#(\d+);?|&([a-z][a-z0-9]*);?/gi,
    (whole, hexCode?: string, decCode?: string, name?: string) => {
      if (hexCode !== undefined || decCode !== undefined) {
        const cp = hexCode !== undefined ? Number.parseInt(hexCode, 16) : Number.parseInt(decCode!, 10);
        return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\ufffd";
      }
      return NAMED[name!.toLowerCase()] ?? whole;
    },
  );
}

/**
 * True when a link or image target may stay in a report: `http://`, `https://`, `mailto:` or
 * `#…`, judged after decoding character references (repeatedly) and removing whitespace,
 * control and invisible characters and backslashes, case-insensitively.
 */
export function isSafeLinkTarget(target: string): boolean {
  let text = target;
  for (let i = 0; i < 5; i++) {
    const next = decodeEntities(text);
    if (next === text) break;
    text = next;
  }
  return ALLOWED_TARGET.test(text.replace(INVISIBLE, "").toLowerCase());
}

/**
 * True when Markdown, parsed as the HTML renderer parses it (GFM), contains no raw HTML and no
 * link, image or reference definition with a target other than {@link isSafeLinkTarget} allows.
 */
export function isInertMarkdown(markdown: string): boolean {
  let tokens: TokensList;
  try {
    tokens = parser().lexer(markdown);
  } catch {
    return false;
  }
  for (const def of Object.values(tokens.links ?? {})) if (!isSafeLinkTarget(def.href ?? "")) return false;
  let inert = true;
  parser().walkTokens(tokens, (t: Token) => {
    if (t.type === "html") inert = false;
    else if ((t.type === "link" || t.type === "image") && !isSafeLinkTarget(t.href)) inert = false;
  });
  return inert;
}

/** Escapes untrusted Markdown so that it renders as text with safe links only (see the module doc). */
export function safeMarkdown(markdown: string): string {
  const text = stripControlChars(markdown);
  for (const strict of [false, true]) {
    const out = escapeMarkup(text, strict);
    if (isInertMarkdown(out)) return out;
  }
  return text
    .replace(/</g, "&lt;")
    .replace(/\[/g, "&#91;")
    .replace(/(ftp):/gi, "$1&#58;");
}

const FENCE = /^((?:[ \t]*>)*[ \t]*)(`{3,}|~{3,})(.*)$/;

/** Escapes markup outside fenced code blocks; `strict` also escapes every `[`. */
function escapeMarkup(text: string, strict: boolean): string {
  const out: string[] = [];
  let pending: string[] = [];
  let fence: { char: string; length: number } | null = null;
  const flush = () => {
    if (pending.length) out.push(escapeInline(pending.join("\n"), strict));
    pending = [];
  };
  for (const line of text.split("\n")) {
    if (fence) {
      out.push(line);
      const m = FENCE.exec(line);
      if (m && m[2]![0] === fence.char && m[2]!.length >= fence.length && m[3]!.trim() === "") fence = null;
      continue;
    }
    const m = FENCE.exec(line);
    if (m && !(m[2]![0] === "`" && m[3]!.includes("`"))) {
      flush();
      fence = { char: m[2]![0]!, length: m[2]!.length };
      out.push(line);
      continue;
    }
    pending.push(line);
  }
  flush();
  return out.join("\n");
}

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const SAFE_AUTOLINK =
  /^<(?:(?:https?:\/\/|mailto:)[^\s<>`\\]*|[a-zA-Z0-9.!#$%&'*+/=?^_{|}~-]+@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*)>/i;

/** Escapes raw HTML and unsafe link targets in text outside code spans. */
function escapeInline(s: string, strict: boolean): string {
  let out = "";
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "\\" && s[i + 1] === "<") {
      // `\<` and `&lt;` read the same; the entity holds in every parser (a GFM autolink can swallow the backslash).
      out += "&lt;";
      i += 2;
    } else if (c === "\\") {
      const next = s[i + 1];
      const take = next !== undefined && ASCII_PUNCTUATION.test(next) ? 2 : 1;
      out += s.slice(i, i + take);
      i += take;
    } else if (c === "`") {
      const end = codeSpanEnd(s, i);
      out += s.slice(i, end);
      i = end;
    } else if (c === "<") {
      const auto = SAFE_AUTOLINK.exec(s.slice(i, i + 2048));
      if (auto) {
        out += auto[0];
        i += auto[0].length;
      } else {
        out += "&lt;";
        i++;
      }
    } else if (c === "]" && (s[i + 1] === "(" || s[i + 1] === ":")) {
      const { target, pointy } = destination(s, i + 2);
      if (!isSafeLinkTarget(target)) {
        // Not a link any more: the brackets and the target read as written.
        out += s[i + 1] === "(" ? "]\\(" : "\\]:";
        i += 2;
      } else if (pointy) {
        out += s.slice(i, pointy);
        i = pointy;
      } else {
        out += s.slice(i, i + 2);
        i += 2;
      }
    } else if (c === "[" && strict) {
      out += "\\[";
      i++;
    } else if ((c === "f" || c === "F") && /^ftp:\/\//i.test(s.slice(i, i + 6))) {
      out += `${s.slice(i, i + 3)}\\:`;
      i += 4;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Where the code span opened by the backtick run at `start` ends, or the end of the run when it is not closed. */
function codeSpanEnd(s: string, start: number): number {
  let n = 0;
  while (s[start + n] === "`") n++;
  const blank = /\n[ \t]*\n/g;
  blank.lastIndex = start;
  const limit = blank.exec(s)?.index ?? s.length;
  let k = start + n;
  while (k < limit) {
    const next = s.indexOf("`", k);
    if (next < 0 || next >= limit) break;
    let m = 0;
    while (s[next + m] === "`") m++;
    if (m === n) return next + m;
    k = next + m;
  }
  return start + n;
}

/** The link destination starting at `from` (after `](` or `]:`); `pointy` is the index after `<…>`. */
function destination(s: string, from: number): { target: string; pointy?: number } {
  const lead = /^[ \t]*\n?[ \t]*/.exec(s.slice(from))![0].length;
  const start = from + lead;
  if (s[start] === "<") {
    const close = s.indexOf(">", start);
    const newline = s.indexOf("\n", start);
    const inner = close > 0 ? s.slice(start + 1, close) : "<";
    if (close > 0 && (newline < 0 || close < newline) && !inner.includes("<")) {
      return { target: inner, pointy: close + 1 };
    }
    return { target: "<" };
  }
  return { target: /^[^\s)]*/.exec(s.slice(start))![0] };
}
