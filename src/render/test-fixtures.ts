/**
 * Report documents the renderer tests share: an English report with sections, a subsection,
 * lists, a table, code and citations; the same in Chinese; and the facts a rendering must keep
 * (its section headings and references).
 */

import type { Reference } from "../core/citations.ts";
import type { ReportDocument } from "../core/report.ts";

/** A report document with `body` (its `# title` line first) and `references`. */
export function reportDocument(options: {
  title: string;
  body: string;
  references: Reference[];
  language?: string;
  query?: string;
}): ReportDocument {
  const refs = options.references
    .map((r) => `${r.number}. ${r.title}. <${r.locator}> (accessed ${r.accessed})`)
    .join("\n");
  return {
    runId: "run-render-1",
    query: options.query ?? "How do heat pumps perform in cold climates?",
    strategy: "minddr",
    title: options.title,
    createdAt: "2026-01-02T00:00:00.000Z",
    currentDate: "2026-01-02",
    language: options.language ?? "en",
    outline: { sections: [] } as never,
    markdown: `${options.body.trimEnd()}\n\n## References\n\n${refs}\n`,
    body: options.body,
    references: options.references,
    evidenceByNumber: {},
    sources: [],
    evidence: [],
    checks: {} as never,
    usage: {} as never,
    stopReason: "completed",
  };
}

const web = (number: number, title: string, locator: string): Reference => ({
  number,
  sourceId: `s${number}`,
  kind: "web",
  title,
  locator,
  accessed: "2026-01-02",
});

/** The English report: four sections (one with a subsection) and four references. */
export const ENGLISH_REPORT = reportDocument({
  title: "Heat pumps in cold climates",
  body: `# Heat pumps in cold climates

## Performance at low temperatures

Cold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees [1]. Field
trials in Norway and Canada found the same [1, 2].

### Defrost cycles

Defrost cycles cost 5 to 10 percent of the seasonal output [2].

## Costs and payback

| Country | Payback (years) |
|---|---:|
| Norway | 6 [3] |
| Canada | 9 |

- Installation costs fell in 2025 [3].
- Subsidies cover up to a third.
  - Some regions add more.

1. Insulate first.
2. Size the unit to the load [4].

## Installer notes

\`\`\`
cop = heat_out / electricity_in
\`\`\`

> Quoted figures are for air-to-water units.

## Outlook

Sales keep rising **in every market** studied, with *few* exceptions [4].
`,
  references: [
    web(1, "Cold climate field trial", "https://trials.example.org/cold-climate"),
    web(2, "Defrost losses measured", "https://lab.example.net/defrost"),
    web(3, "Installation cost survey 2025", "https://survey.example.com/costs"),
    {
      number: 4,
      sourceId: "s4",
      kind: "local",
      title: "Sizing guide",
      locator: "docs/sizing.md#load",
      accessed: "2026-01-02",
    },
  ],
});

/** The section headings of {@link ENGLISH_REPORT}, in order (the title and References excluded). */
export const ENGLISH_HEADINGS = [
  "Performance at low temperatures",
  "Defrost cycles",
  "Costs and payback",
  "Installer notes",
  "Outlook",
];

/** The Chinese report: three sections and two references. */
export const CHINESE_REPORT = reportDocument({
  title: "寒冷地区的热泵",
  language: "zh-CN",
  query: "热泵在寒冷地区的表现如何？",
  body: `# 寒冷地区的热泵

## 低温下的性能

在零下十五度时，寒冷地区热泵的性能系数仍高于二 [1]。

## 成本与回收期

安装成本在二〇二五年有所下降 [2]。

## 展望

各个市场的销量持续增长 [1, 2]。
`,
  references: [
    web(1, "寒冷气候现场试验", "https://trials.example.org/zh"),
    web(2, "安装成本调查", "https://survey.example.com/zh"),
  ],
});

/** The section headings of {@link CHINESE_REPORT}. */
export const CHINESE_HEADINGS = ["低温下的性能", "成本与回收期", "展望"];
