/**
 * Text utilities shared by retrieval, evidence selection and checks: Unicode-aware word
 * segmentation into content words.
 */

import { segmenter } from "./segmenter.ts";

const STOPWORDS = new Set(
  (
    "a an the and or but if of to in on at by for with from as is are was were be been being it its this that these those " +
    "there their they them he she his her we our you your i not no so than then which who whom whose what when where how " +
    "also into over under about after before between more most such can could may might will would should has have had do does did " +
    "的 了 和 是 在 也 与 及 等 对 为 以 而 或 之 其 这 那 一个 我们 他们"
  ).split(/\s+/),
);

/** Content words of a text: lower-case word segments that are not stopwords or bare numbers of one digit. */
export function contentWords(text: string): string[] {
  const words: string[] = [];
  for (const s of segmenter("word").segment(text.toLowerCase())) {
    if (!s.isWordLike) continue;
    const w = s.segment;
    if (STOPWORDS.has(w) || /^\d$/.test(w)) continue;
    words.push(w);
  }
  return words;
}
