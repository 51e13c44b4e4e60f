/**
 * Temporal check (seed: MindDR §8.4, regex stage). A predictive statement — a future-tense cue
 * ("will", "is expected to", "预计", "将达到") near a target date — is an error when the target
 * period has already ended by the current date and no forecaster is named within the sentence or
 * its neighbours. {@link verifyTemporal} is the optional model stage.
 */

import { DossierError } from "../../core/errors.ts";
import { proseUnits, splitSentences } from "./prose.ts";
import { findAttribution, findPredictiveCues } from "./temporal-cues.ts";
import { type DateMention, findDates } from "./temporal-dates.ts";

/** Options of {@link checkTemporal}. */
export interface TemporalCheckOptions {
  /** The date the report is read at, `YYYY-MM-DD`. */
  currentDate: string;
  /** Which cue sets to use; default "auto" (English and Chinese). */
  language?: "en" | "zh" | "auto";
  /**
   * Preceding sentences searched for an attribution when a sentence continues them with a
   * reference such as "It", "The firm", "该机构", "其" (default 2). The sentence itself is always searched.
   */
  attributionWindow?: number;
  /** Sentences on each side included in `context` for model verification (default 2). */
  contextWindow?: number;
}

/** A predictive statement with a target date. */
export interface TemporalFinding {
  /** The sentence. */
  sentence: string;
  /** 1-based line of the block the sentence is in. */
  line: number;
  /** 0-based index among all prose sentences. */
  sentenceIndex: number;
  /** The predictive cue ("will", "预计"). */
  cue: string;
  /** The target date: the latest date the cue refers to. */
  date: { text: string; periodEnd: string };
  /** True when the target period ended before the current date. */
  past: boolean;
  /** The attributing phrase found within the window, or null. */
  attribution: string | null;
  /** True when `past` and no attribution: a temporal error. */
  flagged: boolean;
  /** The sentence with its neighbours, for model verification. */
  context: string;
}

/** Result of {@link checkTemporal}. */
export interface TemporalCheckResult {
  currentDate: string;
  /** Prose sentences examined. */
  sentences: number;
  /** Predictive statements with a target date. */
  candidates: TemporalFinding[];
  /** Candidates whose target period is past. */
  pastPredictive: number;
  /** The errors: past, unattributed predictions. */
  flagged: TemporalFinding[];
  /** flagged / candidates; null when there is no candidate. */
  errorRate: number | null;
}

const BASELINE_EN =
  /(?:since|from|than|over|versus|vs\.?|after|compared (?:with|to)|relative to|last|previous)\s+(?:the\s+)?(?:(?:end|start|beginning|middle) of\s+)?$/i;
const BASELINE_ZH = /(?:比|较|相比|同比|自|从|与)\s*$/;
const TARGET_BEFORE_EN =
  /(?:by|until|till|through|before|in|during|around|for|within|toward|towards)\s+(?:the\s+)?(?:(?:end|close|start|beginning|middle|first half|second half) of\s+|(?:early|late|mid)[- ]?)?$/i;
const TARGET_BEFORE_ZH = /(?:到|至|于|在|截至|截止|到了)\s*$/;
/** "Previously expected / originally planned": the sentence looks back at an old forecast. */
const RETROSPECTIVE_ZH = /(?:此前|曾|原|原本|早先|当时|曾经|先前|之前)(?:预计|预期|预测|计划|估计)/;
const TARGET_AFTER_ZH = /^(?:前|之前|以前|底|末|年底|年末|上半年|下半年|时|届时)/;

/** Dates a cue refers to: after it within a window (not baselines), or just before it after "by"/"到". */
function targetDates(sentence: string, cueIndex: number, dates: readonly DateMention[]): DateMention[] {
  return dates.filter((d) => {
    const before = sentence.slice(Math.max(0, d.index - 30), d.index);
    const after = sentence.slice(d.endIndex, d.endIndex + 4);
    const cjk = /[\u4e00-\u9fff]/.test(before + d.text + after);
    if (d.index >= cueIndex) {
      if (d.index - cueIndex > (cjk ? 40 : 90)) return false;
      return !(BASELINE_EN.test(before) || BASELINE_ZH.test(before));
    }
    if (cueIndex - d.endIndex > (cjk ? 16 : 40)) return false;
    if (TARGET_BEFORE_EN.test(before) || TARGET_BEFORE_ZH.test(before) || TARGET_AFTER_ZH.test(after))
      return true;
    // A Chinese sentence may open with its target date ("2025年，销量将达到…") unless a
    // past-tense marker between the date and the cue shows the date belongs to a past event.
    return (
      cjk &&
      !/[了已曾过]/.test(sentence.slice(d.endIndex, cueIndex)) &&
      !RETROSPECTIVE_ZH.test(sentence.slice(Math.max(0, d.index - 10), d.index))
    );
  });
}

/** A sentence opening that refers back to a forecaster named just before. */
const ANAPHOR =
  /^(?:(?:it|they|he|she|its|their|his|her|this|these|such)\b|the\s+(?:firm|company|agency|bank|report|group|institute|study|survey|analysts?|forecasters?|organi[sz]ation|ministry|government|researchers?|economists?)\b|(?:该|其|他们|她们|他|她|此|上述|这|这些|报告|该报告))/i;

/** The attribution of sentence `i`: in the sentence, or before it when the sentence refers back. */
function attributionOf(sentences: readonly { text: string }[], i: number, window: number): string | null {
  const own = findAttribution(sentences[i]!.text);
  if (own !== null || window <= 0) return own;
  let j = i;
  while (j > 0 && i - j < window && ANAPHOR.test(sentences[j]!.text.trim())) {
    j--;
    const found = findAttribution(sentences[j]!.text);
    if (found !== null) return found;
  }
  return null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function predictive(sentence: string, language: "en" | "zh" | "auto") {
  const dates = findDates(sentence);
  if (dates.length === 0) return null;
  const cues = findPredictiveCues(sentence).filter(
    (c) => language === "auto" || (language === "zh") === /[\u4e00-\u9fff]/.test(c.text),
  );
  let best: { cue: string; date: DateMention } | null = null;
  for (const cue of cues) {
    for (const date of targetDates(sentence, cue.index, dates)) {
      if (best === null || date.periodEnd > best.date.periodEnd) best = { cue: cue.text, date };
    }
  }
  return best;
}

/** Finds predictive statements about already-past dates that name no forecaster. */
export function checkTemporal(markdown: string, options: TemporalCheckOptions): TemporalCheckResult {
  const { currentDate, language = "auto", attributionWindow = 2, contextWindow = 2 } = options;
  if (!ISO_DATE.test(currentDate) || Number.isNaN(Date.parse(currentDate))) {
    throw new DossierError("INPUT_INVALID", `current date "${currentDate}" is not YYYY-MM-DD`, {
      details: { currentDate },
    });
  }
  const sentences: Array<{ text: string; line: number }> = [];
  for (const unit of proseUnits(markdown, { includeHeadings: false })) {
    for (const text of splitSentences(unit.text)) sentences.push({ text, line: unit.line });
  }
  const around = (i: number, window: number) =>
    sentences
      .slice(Math.max(0, i - window), i + window + 1)
      .map((s) => s.text)
      .join(" ");
  const candidates: TemporalFinding[] = [];
  sentences.forEach((s, i) => {
    const hit = predictive(s.text, language);
    if (!hit) return;
    const past = hit.date.periodEnd < currentDate;
    const attribution = attributionOf(sentences, i, attributionWindow);
    candidates.push({
      sentence: s.text,
      line: s.line,
      sentenceIndex: i,
      cue: hit.cue,
      date: { text: hit.date.text, periodEnd: hit.date.periodEnd },
      past,
      attribution,
      flagged: past && attribution === null,
      context: around(i, contextWindow),
    });
  });
  const flagged = candidates.filter((c) => c.flagged);
  return {
    currentDate,
    sentences: sentences.length,
    candidates,
    pastPredictive: candidates.filter((c) => c.past).length,
    flagged,
    errorRate: candidates.length ? flagged.length / candidates.length : null,
  };
}
