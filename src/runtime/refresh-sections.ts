/**
 * A report body cut into its sections for a refresh: the part before the first `## ` heading
 * (the title and introduction) and each level-2 section with everything under it. Joining the
 * sections gives the body back byte for byte, so a section left alone stays as it was; a
 * rewritten one keeps its heading and its trailing blank lines.
 */

import { citedNumbers } from "../core/citations.ts";

/** One section of a report body. */
export interface BodySection {
  /** 0 for the title and introduction, then 1, 2, … for the `## ` sections in order. */
  index: number;
  /** The heading line as written (`# Title` for section 0). */
  heading: string;
  /** The heading's text ("Introduction" for section 0). */
  title: string;
  /** The whole section as written: heading, content and trailing blank lines. */
  text: string;
  /** Reference numbers cited in the section. */
  numbers: number[];
}

const FENCE = /^(```|~~~)/;

/** Cuts `body` into its sections; `sections.map((s) => s.text).join("")` is `body`. */
export function splitSections(body: string): BodySection[] {
  const lines = body.split(/(?<=\n)/);
  const blocks: string[][] = [[]];
  let inFence = false;
  for (const line of lines) {
    if (FENCE.test(line)) inFence = !inFence;
    if (!inFence && /^## \S/.test(line)) blocks.push([]);
    blocks.at(-1)!.push(line);
  }
  return blocks.map((block, index) => {
    const text = block.join("");
    const heading = (block[0] ?? "").replace(/\n$/, "");
    const title = index === 0 ? "Introduction" : heading.replace(/^##\s+/, "").trim();
    return { index, heading, title, text, numbers: citedNumbers(text) };
  });
}

/** The content of a section: its text without the heading line and the blank lines around. */
export function sectionContent(section: Pick<BodySection, "text" | "heading">): string {
  return section.text.slice(section.heading.length).trim();
}

/** The section with `content` under its heading, ending with the blank lines it ended with. */
export function withContent(section: BodySection, content: string): string {
  const trailing = /\s*$/.exec(section.text)?.[0] ?? "\n";
  return `${section.heading}\n\n${content.trim()}${trailing || "\n"}`;
}
