/**
 * Clean-up of a page's main content after Readability, before it becomes Markdown: what a
 * reader of the article does not read as part of it.
 *
 * - Figures of images and their captions, photo credits (`Photo: …`, `(Image: …)`).
 * - Blocks whose class or id names sharing, related stories, newsletters, promotions, ads,
 *   comments, bylines or dates (Readability keeps many of them inside a good container).
 * - Lists and short blocks made (almost) only of links: related-story lists, tag lists, menus.
 * - Short blocks repeated three times or more (share bars), a long block repeated, and short
 *   lines that only date or sign the article (`Updated Nov 19, 6:55 AM`, `By Justine Coleman -
 *   11/18/19`).
 */

/** Class or id words of blocks that are not the article. */
const BOILERPLATE_NAME =
  /(?:^|[-_\s])(?:share|sharing|social|related|recommended|newsletter|promo|advert|ads?|sponsor(?:ed)?|subscribe|subscription|comments?|byline|author|dateline|timestamp|date|meta|tags?|breadcrumbs?|caption|credit|toolbar|popup|modal|outbrain|taboola|more-stories|read-more|readmore|signup)(?:$|[-_\s])/i;

const LEAF_BLOCKS = "p, div, li, h1, h2, h3, h4, h5, h6, blockquote, dd, dt";
const LINKY_BLOCKS = "ul, ol, p, div, section, aside, nav, dl, table, h2, h3, h4, h5, h6";
/** `By Justine Coleman - 11/18/19`, `Par Jean Dupont`: a signature line. */
const BYLINE =
  /^(?:By|BY|Von|Par|Por)\s+\p{Lu}[\p{L}.'’-]*(?:\s+\p{Lu}[\p{L}.'’-]*){0,3}(?:\s*(?:[,|–—-]|and\b).*)?$/u;
/** `Updated Nov 19, 6:55 AM`, `PUBLISHED: 10:48, Tue, Nov 19, 2019`: a date line. */
const DATE_LINE = /^\|?\s*(?:updated|published|posted|last updated|modified|created)\b/i;
const HAS_DIGIT = /\d/;
const CREDIT = /^(?:\(?\s*(?:photo|image|picture|foto|credit|source|bild)s?\s*(?:credit)?\s*:|©)/i;

function text(element: Element): string {
  return (element.textContent ?? "").replace(/\s+/g, " ").trim();
}

function linkTextLength(element: Element): number {
  let length = 0;
  for (const anchor of element.querySelectorAll("a")) length += text(anchor).length;
  return length;
}

function boilerplateName(element: Element): boolean {
  const name = `${element.getAttribute("class") ?? ""} ${element.getAttribute("id") ?? ""}`;
  return name.trim() !== "" && BOILERPLATE_NAME.test(name);
}

function isAncestorRemoved(element: Element, root: Element): boolean {
  return !root.contains(element);
}

/** Removes what is not the article from `root` (Readability's content, classes kept). */
export function cleanArticle(root: Element): void {
  for (const figure of [...root.querySelectorAll("figure")]) {
    if (!figure.querySelector("table, pre, code, blockquote, ul, ol")) figure.remove();
  }
  for (const caption of [...root.querySelectorAll("figcaption")]) caption.remove();

  const total = text(root).length;
  for (const element of [...root.querySelectorAll("*")]) {
    if (isAncestorRemoved(element, root) || !boilerplateName(element)) continue;
    if (/^(?:ARTICLE|MAIN|TABLE)$/.test(element.tagName) || element.closest("table, pre, code")) continue;
    // A container of the article itself (WordPress writes `tag-…`, `category-…` on it) stays.
    const paragraphs = [...element.querySelectorAll("p")].filter((p) => text(p).length > 100).length;
    if (text(element).length < 0.4 * total && paragraphs < 3) element.remove();
  }

  for (const element of [...root.querySelectorAll(LINKY_BLOCKS)].reverse()) {
    if (isAncestorRemoved(element, root)) continue;
    const content = text(element);
    if (content === "") continue;
    const density = linkTextLength(element) / content.length;
    const list = element.tagName === "UL" || element.tagName === "OL" || element.tagName === "NAV";
    if ((list && density > 0.7) || (density > 0.85 && content.length < 300)) element.remove();
  }

  // Innermost blocks only, so that a block and its wrapper do not count as a repeat.
  const blocks = [...root.querySelectorAll(LEAF_BLOCKS)].filter(
    (element) => !element.querySelector(LEAF_BLOCKS),
  );
  const seen = new Map<string, number>();
  for (const block of blocks) {
    const content = text(block);
    if (content) seen.set(content, (seen.get(content) ?? 0) + 1);
  }
  const kept = new Set<string>();
  for (const block of blocks) {
    if (isAncestorRemoved(block, root)) continue;
    const content = text(block);
    if (!content) continue;
    const short = content.length < 120;
    const repeated = (seen.get(content) ?? 0) >= 3 && block.tagName !== "LI";
    if ((short && repeated) || (!short && kept.has(content))) {
      block.remove();
      continue;
    }
    kept.add(content);
    if (
      short &&
      (BYLINE.test(content) || (DATE_LINE.test(content) && HAS_DIGIT.test(content)) || CREDIT.test(content))
    ) {
      block.remove();
    }
  }
}
