/**
 * Images in a report load nothing. A Markdown image written by a model or taken from a page
 * (`![chart](https://host/px.png?q=…)`) would make every viewer that opens the report request
 * an address the text chose — a tracking pixel, or a way to carry data out. By default a
 * report shows each image as a link instead: its alt text after `image:` as the link text, the
 * image URL as the target, so nothing is requested until the reader follows it.
 *
 * `![chart](https://host/c.png "t")` becomes `[image: chart](https://host/c.png "t")`, `![](u)`
 * becomes `[image](u)`; reference images keep their reference. When an image cannot be
 * rewritten in place (its source spans quoted lines), its `[` is escaped so it reads as the
 * text that was written, URL included. Pure, no I/O.
 */

import type { Marked, Token, Tokens } from "marked";
import { lazyModule } from "./lazy-module.ts";

/** marked, loaded on first use; the GFM parser is made then. */
const marked = lazyModule<typeof import("marked")>("marked");
let gfm: Marked | undefined;
function parser(): Marked {
  gfm ??= new (marked().Marked)({ gfm: true });
  return gfm;
}

/** How a report shows the images its text contains. */
export const REMOTE_IMAGE_MODES = ["link", "keep"] as const;
/** `link` (default): every image becomes a link to its URL; `keep`: images stay images. */
export type RemoteImages = (typeof REMOTE_IMAGE_MODES)[number];

/** The image tokens of `markdown` in document order, as the HTML renderer's parser (GFM) finds them. */
function imageTokens(markdown: string): Tokens.Image[] {
  const found: Tokens.Image[] = [];
  parser().walkTokens(parser().lexer(markdown), (t: Token) => {
    if (t.type === "image") found.push(t as Tokens.Image);
  });
  return found;
}

/** True when `markdown` contains an image (inline or by reference). */
export function hasImages(markdown: string): boolean {
  return imageTokens(markdown).length > 0;
}

/** The link an image becomes. */
function asLink(image: Tokens.Image): string {
  const raw = image.raw;
  const rest = raw.slice(2);
  const label = rest.startsWith("]") ? "[image" : "[image: ";
  // Inline (`![a](u)`) and full reference (`![a][ref]`) images keep their target as written.
  if (raw.endsWith(")") || /\]\[[^\]]+\]$/.test(raw)) return `${label}${rest}`;
  // Collapsed (`![a][]`) and shortcut (`![a]`) references name their target by their label.
  const alt = raw.endsWith("[]") ? rest.slice(0, -3) : rest.slice(0, -1);
  const href = image.href.replace(/[\s<>]/g, (c) => encodeURIComponent(c));
  return `${label}${alt}](<${href}>)`;
}

/** Replaces each image's source text, in order, with `rewrite(image)`. */
function rewriteImages(markdown: string, rewrite: (image: Tokens.Image) => string): string {
  let out = "";
  let rest = markdown;
  for (const image of imageTokens(markdown)) {
    const at = rest.indexOf(image.raw);
    if (at < 0) continue;
    out += rest.slice(0, at) + rewrite(image);
    rest = rest.slice(at + image.raw.length);
  }
  return out + rest;
}

/** Every image of `markdown` as a link to its URL (see the module doc); idempotent. */
export function imagesAsLinks(markdown: string): string {
  if (!markdown.includes("![")) return markdown;
  const linked = rewriteImages(markdown, asLink);
  if (!hasImages(linked)) return linked;
  const escaped = rewriteImages(linked, (image) => `!\\[${image.raw.slice(2)}`);
  if (!hasImages(escaped)) return escaped;
  return escaped.replace(/!\[/g, "!\\[");
}
