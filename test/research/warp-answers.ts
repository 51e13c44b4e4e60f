/**
 * Answers of the scripted research model for the warp strategy's actions: survey and section
 * keywords, the level-1 outline, section content quoting the passages it was given, and the
 * deepening decision (expand the first candidate until `warpExpansions`, then terminate).
 */

import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** Options of the warp answers. */
export interface WarpScriptOptions {
  /** Expansions the deepening policy makes before it terminates. Default 1. */
  warpExpansions?: number;
}

/** The three level-1 sections of the outline. */
export const WARP_SECTIONS = ["Costs and prices", "Supply and chemistry", "Storage and grid"];

/**
 * SEARCH: at initialisation two survey keywords; for a section, its title with a number (the
 * fake search engine picks its pages by the first number of a query) and the question.
 */
export function warpSearchAnswer(user: string): Reply {
  const target = /Instruction: Retrieve evidence for section-([\d.]+) "([^"]*)"/.exec(user);
  if (!target) return json({ name: "search", keywords: ["battery prices 1", "storage adoption 6"] });
  const [, id, title] = target;
  const n = id!.split(".").reduce((sum, part) => sum + Number(part), 0) * 3;
  const question = /<question>\n([\s\S]*?)\n<\/question>/.exec(user)?.[1]?.trim() ?? "";
  return json({ name: "search", keywords: [`${title} ${n}`, question.slice(0, 120)] });
}

/** INITIALIZE: three sections with writing plans. */
export function warpInitAnswer(): Reply {
  return json({
    name: "initialize",
    title: "Research report on the question",
    sections: WARP_SECTIONS.map((title) => ({
      title,
      plan: `Explain ${title.toLowerCase()} with the evidence`,
    })),
  });
}

/** WRITE: the first three passages quoted, each cited. */
export function warpWriteAnswer(user: string): Reply {
  const block = /<passages>\n([\s\S]*?)\n<\/passages>/.exec(user)?.[1] ?? "";
  const passages = [...block.matchAll(/^\[(E\d+)\] \([^)]*\) (.+)$/gm)].slice(0, 3);
  const content = passages.map(([, id, text]) => `${text!.replace(/…$/, "")} [${id}]`).join(" ");
  return json({ name: "write", content });
}

/** EXPAND the first candidate into two subsections, `warpExpansions` times, then TERMINATE. */
export function warpDeepenAnswer(user: string, call: number, options: WarpScriptOptions): Reply {
  const candidate = /^- (section-[\d.]+) /m.exec(user)?.[1];
  if (call > (options.warpExpansions ?? 1) || !candidate) return json({ name: "terminate" });
  return json({
    name: "expand",
    position: candidate,
    subsections: [
      { title: "Recent figures", plan: "The latest measured figures" },
      { title: "Open questions", plan: "What the sources leave open" },
    ],
  });
}
