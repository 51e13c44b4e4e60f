/**
 * The Word (DOCX) rendering of a report, built with the `docx` library from the report's
 * Markdown as the project's Markdown reader lexes it ({@link markdownTokens}): the title and
 * the report's headings as Word's Heading 1–6 styles (the title is Heading 1 and the report's
 * `##` sections Heading 2, as in the HTML report), paragraphs, bullet and numbered lists, tables,
 * block quotes, code in a monospace font, numbered citations as internal links to their entry
 * in the References section (bookmarks `ref_<n>`), and the References section itself, each
 * entry linking to its source when that is an http(s) URL.
 *
 * Untrusted text stays text (see docx-inline.ts): no raw HTML is interpreted, no link scheme
 * but http(s) becomes a hyperlink, no image is embedded (the document loads nothing).
 */

import {
  AlignmentType,
  Bookmark,
  BorderStyle,
  Document,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  type ParagraphChild,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import type { Token, Tokens } from "marked";
import type { Reference } from "../core/citations.ts";
import { accessNote, titleSentence } from "../core/citations.ts";
import { claimSummaryLine } from "../core/claim-verdicts.ts";
import { languageTag } from "../core/language-tag.ts";
import { markdownTokens } from "../core/markdown.ts";
import { imagesAsLinks } from "../core/markdown-images.ts";
import type { ReportDocument } from "../core/report.ts";
import { reportLabels } from "../core/report-labels.ts";
import { safeMarkdown } from "../core/safe-markdown.ts";
import { claimMarks } from "./claim-marks.ts";
import {
  codeRun,
  externalLink,
  httpUrl,
  type InlineContext,
  inlineRuns,
  literalRun,
  oneLine,
  referenceBookmark,
  textRun,
} from "./docx-inline.ts";
import type { RenderOptions } from "./render-options.ts";

type Block = Paragraph | Table;

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
] as const;

const BULLETS = ["•", "◦", "▪"];
const CODE_SHADING = { type: ShadingType.CLEAR, fill: "F2F3F5", color: "auto" } as const;
const INDENT = 360;

/** Walks the block tokens of the report into Word paragraphs and tables. */
class BlockWriter {
  /** Numbered lists so far: each one a numbering instance of its own, restarting at its start. */
  private lists = 0;
  /** The start values of numbered lists that do not start at 1. */
  readonly starts = new Set<number>();

  private readonly inline: InlineContext;

  constructor(inline: InlineContext) {
    this.inline = inline;
  }

  blocks(tokens: readonly Token[], indent = 0): Block[] {
    return tokens.flatMap((token) => this.block(token, indent));
  }

  private paragraph(children: ParagraphChild[], indent: number, extra: Record<string, unknown> = {}) {
    return new Paragraph({ children, ...(indent ? { indent: { left: indent } } : {}), ...extra });
  }

  private block(token: Token, indent: number): Block[] {
    switch (token.type) {
      case "heading": {
        const h = token as Tokens.Heading;
        const heading = HEADINGS[Math.min(Math.max(h.depth, 1), 6) - 1]!;
        return [new Paragraph({ heading, children: inlineRuns(h.tokens, this.inline) })];
      }
      case "paragraph":
        return [this.paragraph(inlineRuns((token as Tokens.Paragraph).tokens, this.inline), indent)];
      case "text": {
        const t = token as Tokens.Text;
        return [this.paragraph(t.tokens ? inlineRuns(t.tokens, this.inline) : [textRun(t.text)], indent)];
      }
      case "list":
        return this.list(token as Tokens.List, 0, indent);
      case "code":
        return (token as Tokens.Code).text.split("\n").map((line) =>
          this.paragraph([codeRun(line || " ")], indent + INDENT / 2, {
            shading: CODE_SHADING,
            spacing: { before: 0, after: 0 },
          }),
        );
      case "blockquote":
        return this.blocks((token as Tokens.Blockquote).tokens, indent + INDENT);
      case "table":
        return [this.table(token as Tokens.Table), new Paragraph({ children: [] })];
      case "hr":
        return [
          new Paragraph({
            children: [],
            border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: "C8CCD2", space: 1 } },
          }),
        ];
      case "html":
        // Raw HTML is shown as written.
        return [this.paragraph([textRun(token.raw.trim())], indent)];
      default:
        // space, def (link definitions): nothing to show.
        return [];
    }
  }

  private list(list: Tokens.List, level: number, indent: number): Block[] {
    const start = typeof list.start === "number" ? list.start : 1;
    if (list.ordered && start !== 1) this.starts.add(start);
    const numbering = list.ordered
      ? { reference: start === 1 ? "numbers" : `numbers-from-${start}`, level, instance: ++this.lists }
      : { reference: "bullets", level: Math.min(level, 8) };
    const out: Block[] = [];
    for (const item of list.items) {
      let first = true;
      for (const token of item.tokens) {
        if (token.type === "list") {
          out.push(...this.list(token as Tokens.List, Math.min(level + 1, 8), indent));
          continue;
        }
        if (first && (token.type === "text" || token.type === "paragraph")) {
          const tokens = (token as Tokens.Text | Tokens.Paragraph).tokens;
          const box = item.task ? [textRun(item.checked ? "☑ " : "☐ ")] : [];
          const runs = tokens ? inlineRuns(tokens, this.inline) : [textRun((token as Tokens.Text).text)];
          out.push(new Paragraph({ numbering, children: [...box, ...runs] }));
          first = false;
          continue;
        }
        out.push(...this.block(token, indent + INDENT * (level + 1)));
      }
    }
    return out;
  }

  private table(table: Tokens.Table): Table {
    const align = (a: Tokens.TableCell["align"]) =>
      a === "center" ? AlignmentType.CENTER : a === "right" ? AlignmentType.RIGHT : AlignmentType.LEFT;
    const row = (cells: Tokens.TableCell[], header: boolean) =>
      new TableRow({
        ...(header ? { tableHeader: true } : {}),
        children: cells.map(
          (cell) =>
            new TableCell({
              children: [
                new Paragraph({
                  alignment: align(cell.align),
                  children: inlineRuns(cell.tokens, this.inline, header ? { bold: true } : {}),
                }),
              ],
              ...(header ? { shading: CODE_SHADING } : {}),
            }),
        ),
      });
    return new Table({
      width: { size: 100, type: WidthType.PERCENTAGE },
      rows: [row(table.header, true), ...table.rows.map((cells) => row(cells, false))],
    });
  }
}

/** One entry of the References section, its number a bookmark the citations link to. */
function referenceParagraph(r: Reference, language: string): Paragraph {
  const url = httpUrl(r.locator);
  const where = url
    ? externalLink(url, [literalRun(r.locator, { style: "Hyperlink" })])
    : [codeRun(oneLine(r.locator))];
  return new Paragraph({
    children: [
      new Bookmark({ id: referenceBookmark(r.number), children: [literalRun(`[${r.number}] `)] }),
      literalRun(`${titleSentence(oneLine(r.title))} `),
      ...where,
      literalRun(` (${oneLine(accessNote(r, language))})`, { color: "5D6470" }),
    ],
    spacing: { after: 80 },
  });
}

function levels(format: "bullet" | "decimal", start = 1) {
  return Array.from({ length: 9 }, (_, level) => ({
    level,
    format: format === "bullet" ? LevelFormat.BULLET : LevelFormat.DECIMAL,
    text: format === "bullet" ? BULLETS[level % BULLETS.length]! : `%${level + 1}.`,
    alignment: AlignmentType.LEFT,
    start: level === 0 ? start : 1,
    style: { paragraph: { indent: { left: INDENT * (level + 1), hanging: INDENT } } },
  }));
}

/** Renders the report as a Word document (the bytes of a .docx file). */
export async function renderDocx(doc: ReportDocument, _options: RenderOptions = {}): Promise<Uint8Array> {
  const inline: InlineContext = {
    references: new Set(doc.references.map((r) => r.number)),
    // A verified report marks each checked claim after its citation, as the HTML report does.
    ...(doc.verification
      ? { marks: { byOrdinal: claimMarks(doc.body, doc.verification, doc.language), seen: 0 } }
      : {}),
  };
  const l = reportLabels(doc.language);
  const writer = new BlockWriter(inline);
  // The body without its `# title` line, as the HTML report (the title is written above it).
  const text = safeMarkdown(doc.body.trimStart().replace(/^#\s+[^\n]*\n+/, ""));
  const body = writer.blocks(markdownTokens(imagesAsLinks(text)));
  const meta = { color: "5D6470", size: 20 };
  const lang = languageTag(doc.language === "auto" ? undefined : doc.language) ?? "en";
  const children: Block[] = [
    new Paragraph({
      heading: HeadingLevel.HEADING_1,
      children: [literalRun(oneLine(doc.title))],
    }),
    new Paragraph({
      children: [
        literalRun(`${l.researchQuestion}: ${oneLine(doc.query)}`, meta),
        new TextRun({ ...meta, break: 1 }),
        literalRun(
          `${l.run} ${doc.runId} · ${doc.strategy} · ${doc.currentDate} · ${l.sources(doc.references.length)}`,
          meta,
        ),
      ],
      spacing: { after: 240 },
    }),
    ...(doc.notice
      ? [
          new Paragraph({
            children: [literalRun(oneLine(doc.notice), { italics: true })],
            border: { left: { style: BorderStyle.SINGLE, size: 18, color: "2457C5", space: 8 } },
            indent: { left: INDENT / 2 },
          }),
        ]
      : []),
    ...body,
    ...(doc.references.length
      ? [
          new Paragraph({ heading: HeadingLevel.HEADING_2, children: [literalRun(l.references)] }),
          ...doc.references.map((r) => referenceParagraph(r, doc.language)),
        ]
      : []),
    ...(doc.verification
      ? [
          new Paragraph({
            children: [literalRun(oneLine(claimSummaryLine(doc.verification, doc.language)), meta)],
            border: { top: { style: BorderStyle.SINGLE, size: 6, color: "D0D7DE", space: 8 } },
            spacing: { before: 240 },
          }),
        ]
      : []),
  ];
  const document = new Document({
    creator: "Dossier",
    title: oneLine(doc.title),
    description: oneLine(doc.query),
    styles: {
      default: {
        document: { run: { font: "Calibri", size: 22, language: { value: lang, eastAsia: lang } } },
      },
      characterStyles: [
        {
          id: "Hyperlink",
          name: "Hyperlink",
          basedOn: "DefaultParagraphFont",
          run: { color: "2457C5", underline: {} },
        },
      ],
    },
    numbering: {
      config: [
        { reference: "bullets", levels: levels("bullet") },
        { reference: "numbers", levels: levels("decimal") },
        ...[...writer.starts].map((start) => ({
          reference: `numbers-from-${start}`,
          levels: levels("decimal", start),
        })),
      ],
    },
    sections: [{ children }],
  });
  return Packer.pack(document, "uint8array");
}
