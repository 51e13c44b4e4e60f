/**
 * Fixtures for the corpus tests (not part of the library): a folder with Markdown (nested
 * headings), HTML, a three-page PDF, a Chinese document, a corrupt PDF, a binary file, an
 * oversized file, an unsupported file, a symlink loop and a symlink leading outside the root.
 */

import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** Text of each page of the fixture PDF. */
export const PDF_PAGES = [
  "Photosynthesis converts light into chemical energy in plants.",
  "Mitochondria release energy through cellular respiration.",
  "Ribosomes assemble proteins from amino acids.",
];

/** Builds a PDF with one page per text (pdf-lib, Helvetica) and a Title. */
export async function makePdf(pages: readonly string[], title = "Cell Biology Notes"): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage([500, 300]);
    page.drawText(text, { x: 30, y: 250, size: 11, font });
  }
  return doc.save();
}

/** Deterministic pseudo-random bytes (xorshift32). */
export function pseudoRandomBytes(length: number, seed = 42): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** The Markdown guide of the fixture. */
export const GUIDE_MD = `# User Guide

Dossier indexes your documents locally.

## Installation

Install the package with npm on any platform.

### On Linux

Use the system package manager. Penguins welcome.

### On Windows

Use the installer wizard from the release page.

## Usage

\`\`\`sh
# this is a comment, not a heading
dossier index ./docs
\`\`\`

## Usage

A second section with the same title gets its own anchor.
`;

/** The HTML page of the fixture. */
export const PAGE_HTML = `<!doctype html><html><head><title>Harbour Report</title><style>p{}</style></head>
<body><nav>Home | Sitemap</nav><h1>Harbour</h1><p>The harbour hosts <b>fishing</b> boats.</p>
<h2>Lighthouse Keeper</h2><p>The keeper trims the lamp every evening.</p><script>track()</script></body></html>`;

/** The Chinese Markdown document of the fixture. */
export const CHINESE_MD = `# 机器学习简介

机器学习是人工智能的一个分支，它使计算机能够从数据中学习。

## 深度学习

深度学习使用多层神经网络来学习复杂的表示。
`;

/** Paths (under the root) of the fixture files that are indexed. */
export const INDEXED_FILES = ["guide.md", "notes.txt", "page.html", "paper.pdf", "zh.md"];

/** Writes the fixture folder; returns the root and the folder outside it. */
export async function writeCorpusFixture(): Promise<{ base: string; root: string; outside: string }> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "dossier-corpus-")));
  const root = join(base, "docs");
  const outside = join(base, "outside");
  mkdirSync(join(root, "a"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "secret.md"), "# Secret\n\nexfiltrated credentials live here\n");
  writeFileSync(join(root, "guide.md"), GUIDE_MD);
  writeFileSync(join(root, "page.html"), PAGE_HTML);
  writeFileSync(join(root, "zh.md"), CHINESE_MD);
  writeFileSync(
    join(root, "notes.txt"),
    "Plain notes about the tide tables.\n\nSecond paragraph on moorings.\n",
  );
  writeFileSync(join(root, "paper.pdf"), await makePdf(PDF_PAGES));
  const corrupt = pseudoRandomBytes(2048);
  corrupt.set(new TextEncoder().encode("%PDF-1.7\n"), 0);
  writeFileSync(join(root, "broken.pdf"), corrupt);
  writeFileSync(join(root, "blob.txt"), new Uint8Array([0x68, 0x69, 0x00, 0x01, 0x02, 0xff, 0x00]));
  writeFileSync(join(root, "big.txt"), "large ".repeat(2000));
  writeFileSync(join(root, "image.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  symlinkSync("..", join(root, "a", "loop"));
  symlinkSync(join(outside, "secret.md"), join(root, "escape.md"));
  return { base, root, outside };
}
