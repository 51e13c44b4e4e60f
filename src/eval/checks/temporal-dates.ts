/**
 * Date expressions in English and Chinese sentences, each resolved to the last day of the
 * period it names ("Q3 2024" → 2024-09-30, "2025年上半年" → 2025-06-30, "by 2025" → 2025-12-31),
 * so a statement about the period can be compared with the current date.
 */

/** How precise a date expression is. */
export type DateGranularity = "year" | "half" | "quarter" | "month" | "day";

/** A date expression found in a sentence. */
export interface DateMention {
  /** The matched text. */
  text: string;
  /** Offset of the match in the sentence. */
  index: number;
  /** Offset just after the match. */
  endIndex: number;
  year: number;
  granularity: DateGranularity;
  /** Last day of the named period, `YYYY-MM-DD`. */
  periodEnd: string;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const ORDINAL: Record<string, number> = {
  first: 1,
  "1st": 1,
  second: 2,
  "2nd": 2,
  third: 3,
  "3rd": 3,
  fourth: 4,
  "4th": 4,
  一: 1,
  二: 2,
  三: 3,
  四: 4,
};

const pad = (n: number) => String(n).padStart(2, "0");
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const monthEnd = (year: number, month: number) => `${year}-${pad(month)}-${pad(lastDay(year, month))}`;

const YEAR = "((?:19|20)\\d{2})";
const MONTH_NAME =
  "(January|February|March|April|May|June|July|August|September|October|November|December|Jan\\.?|Feb\\.?|Mar\\.?|Apr\\.?|Jun\\.?|Jul\\.?|Aug\\.?|Sept?\\.?|Oct\\.?|Nov\\.?|Dec\\.?)";

interface Pattern {
  regex: RegExp;
  resolve: (m: RegExpExecArray) => { year: number; granularity: DateGranularity; periodEnd: string } | null;
}

const num = (s: string | undefined) => Number(s ?? "0");
const ord = (s: string | undefined) => ORDINAL[(s ?? "").toLowerCase()] ?? num(s);
const monthOf = (s: string | undefined) => MONTHS[(s ?? "").slice(0, 3).toLowerCase()] ?? 0;
const day = (y: number, m: number, d: number) =>
  m >= 1 && m <= 12 && d >= 1 && d <= lastDay(y, m)
    ? { year: y, granularity: "day" as const, periodEnd: `${y}-${pad(m)}-${pad(d)}` }
    : null;
const month = (y: number, m: number) =>
  m >= 1 && m <= 12 ? { year: y, granularity: "month" as const, periodEnd: monthEnd(y, m) } : null;
const quarter = (y: number, q: number) =>
  q >= 1 && q <= 4 ? { year: y, granularity: "quarter" as const, periodEnd: monthEnd(y, q * 3) } : null;
const half = (y: number, h: number) =>
  h === 1 || h === 2 ? { year: y, granularity: "half" as const, periodEnd: monthEnd(y, h * 6) } : null;
const year = (y: number) => ({ year: y, granularity: "year" as const, periodEnd: `${y}-12-31` });

/** Patterns, most specific first; a later match overlapping an earlier one is dropped. */
const PATTERNS: Pattern[] = [
  // Chinese
  {
    regex: /(?<!\d)(\d{4})年(\d{1,2})月(\d{1,2})[日号]/g,
    resolve: (m) => day(num(m[1]), num(m[2]), num(m[3])),
  },
  { regex: /(?<!\d)(\d{4})年(\d{1,2})月/g, resolve: (m) => month(num(m[1]), num(m[2])) },
  {
    regex: /(?<!\d)(\d{4})年?(?:第?([一二三四1-4])季度|[Qq]([1-4]))/g,
    resolve: (m) => quarter(num(m[1]), ord(m[2] ?? m[3])),
  },
  { regex: /(?<!\d)(\d{4})年(上|下)半年/g, resolve: (m) => half(num(m[1]), m[2] === "上" ? 1 : 2) },
  { regex: /(?<!\d)((?:19|20)\d{2})年(?!代)/g, resolve: (m) => year(num(m[1])) },
  // English and ISO
  {
    regex: new RegExp(`(?<![\\d-])${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(?!\\d)`, "g"),
    resolve: (m) => day(num(m[1]), num(m[2]), num(m[3])),
  },
  {
    regex: new RegExp(`(?<![\\d-])${YEAR}-(0[1-9]|1[0-2])(?![\\d-])`, "g"),
    resolve: (m) => month(num(m[1]), num(m[2])),
  },
  {
    regex: new RegExp(`\\b${MONTH_NAME}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+${YEAR}\\b`, "gi"),
    resolve: (m) => day(num(m[3]), monthOf(m[1]), num(m[2])),
  },
  {
    regex: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH_NAME}\\s+${YEAR}\\b`, "gi"),
    resolve: (m) => day(num(m[3]), monthOf(m[2]), num(m[1])),
  },
  {
    regex: new RegExp(`\\b${MONTH_NAME}\\s+(?:of\\s+)?${YEAR}\\b`, "gi"),
    resolve: (m) => month(num(m[2]), monthOf(m[1])),
  },
  {
    regex: new RegExp(
      `\\b(?:Q([1-4])\\s*(?:of\\s+)?'?|(first|second|third|fourth|1st|2nd|3rd|4th)\\s+quarter\\s+(?:of\\s+)?)${YEAR}\\b`,
      "gi",
    ),
    resolve: (m) => quarter(num(m[3]), ord(m[1] ?? m[2])),
  },
  {
    regex: new RegExp(`\\b${YEAR}\\s*-?\\s*Q([1-4])\\b`, "gi"),
    resolve: (m) => quarter(num(m[1]), num(m[2])),
  },
  {
    regex: new RegExp(`\\b(?:H([12])\\s*'?|(first|second|1st|2nd)\\s+half\\s+(?:of\\s+)?)${YEAR}\\b`, "gi"),
    resolve: (m) => half(num(m[3]), ord(m[1] ?? m[2])),
  },
  { regex: new RegExp(`\\b${YEAR}\\s*-?\\s*H([12])\\b`, "gi"), resolve: (m) => half(num(m[1]), num(m[2])) },
  {
    regex: new RegExp(`(?<![\\d.,$€£¥#/])\\b${YEAR}\\b(?!\\s*%|s\\b|[.,]\\d|年代)`, "g"),
    resolve: (m) => year(num(m[1])),
  },
];

/** Date expressions of `sentence`, in order of appearance, without overlaps. */
export function findDates(sentence: string): DateMention[] {
  const found: DateMention[] = [];
  const taken: Array<[number, number]> = [];
  for (const { regex, resolve } of PATTERNS) {
    regex.lastIndex = 0;
    for (let m = regex.exec(sentence); m !== null; m = regex.exec(sentence)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      const resolved = resolve(m);
      if (!resolved) continue;
      taken.push([start, end]);
      found.push({ text: m[0], index: start, endIndex: end, ...resolved });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}
