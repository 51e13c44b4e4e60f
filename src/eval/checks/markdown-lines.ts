/**
 * Line-level view of a Markdown document that knows which lines belong to fenced code blocks,
 * so every check can leave code alone.
 */

/** One line of a Markdown document. */
export interface MarkdownLine {
  /** 1-based line number. */
  line: number;
  /** The text, without its line ending. */
  text: string;
  /** True for the lines of a fenced code block, fences included. */
  inCode: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Splits `markdown` into lines and marks the fenced code blocks (``` and ~~~, CommonMark rules). */
export function markdownLines(markdown: string): MarkdownLine[] {
  const texts = markdown.split(/\r?\n/);
  const out: MarkdownLine[] = [];
  let fence: { char: string; length: number } | null = null;
  texts.forEach((text, index) => {
    const match = FENCE.exec(text);
    if (fence === null) {
      if (match) {
        const marker = match[1]!;
        // A backtick fence's info string may not contain a backtick.
        const info = text.slice(match[0].length);
        if (marker[0] === "`" && info.includes("`")) {
          out.push({ line: index + 1, text, inCode: false });
          return;
        }
        fence = { char: marker[0]!, length: marker.length };
        out.push({ line: index + 1, text, inCode: true });
        return;
      }
      out.push({ line: index + 1, text, inCode: false });
      return;
    }
    out.push({ line: index + 1, text, inCode: true });
    if (match && match[1]![0] === fence.char && match[1]!.length >= fence.length) {
      if (text.slice(match[0].length).trim() === "") fence = null;
    }
  });
  return out;
}

/** The line ending a document uses (`\r\n` when its first line break is one, else `\n`). */
export function lineEnding(markdown: string): string {
  const index = markdown.indexOf("\n");
  return index > 0 && markdown[index - 1] === "\r" ? "\r\n" : "\n";
}

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

/** The level and title of an ATX heading line (`## Title`), or null. */
export function parseHeading(text: string): { level: number; title: string } | null {
  const match = ATX_HEADING.exec(text);
  if (!match) return null;
  return { level: match[1]!.length, title: (match[2] ?? "").trim() };
}

const REFERENCE_TITLES =
  /^(?:\d+(?:\.\d+)*\.?\s*)?(references|sources|bibliography|works cited|citations|参考文献|参考资料|参考来源|引用|来源|出典|参考文献一覧|참고\s*문헌|참고\s*자료|literatur(?:verzeichnis)?|quellen|références|sources et références|referencias|fuentes|referências|fontes|riferimenti|fonti|bibliografia|bibliographie|bibliografía)\s*:?$/i;

/** True when a heading title names a references / sources section. */
export function isReferencesTitle(title: string): boolean {
  return REFERENCE_TITLES.test(title.trim());
}
