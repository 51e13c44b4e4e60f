import { describe, expect, it } from "vitest";
import { checkTemporal } from "./temporal.ts";
import { findAttribution, findPredictiveCues } from "./temporal-cues.ts";
import { findDates } from "./temporal-dates.ts";

const TODAY = "2026-03-01";

/** [sentence, flagged] pairs; each sentence is checked on its own paragraph. */
const EN_CASES: Array<[string, boolean]> = [
  ["The global market will reach $50 billion by 2024.", true],
  ["Shipments are expected to double in Q3 2025.", true],
  ["Growth is forecast to slow to 2% in H1 2025.", true],
  ["By 2025, more than half of new cars will be electric.", true],
  ["According to Gartner, the market will reach $60 billion by 2025.", false],
  ["The IMF expects global growth of 3.1% in 2025.", false],
  ["Analysts at Morgan Stanley expect shipments to double in 2024.", false],
  ["The company expects deliveries to exceed 2 million units by 2025.", false],
  ["Sales will reach 5 million units by 2025, the ministry said.", false],
  ["The market is expected to reach $80 billion by 2030.", false],
  ["Deliveries will begin in Q2 2026.", false],
  ["Revenue is projected to grow 20% over 2023 levels.", false],
  ["In 2021, the company launched its first model.", false],
  ["The plant was expected to open in 2024 but was delayed.", false],
];

const ZH_CASES: Array<[string, boolean]> = [
  ["预计到2024年，全球电动车销量将达到2000万辆。", true],
  ["2025年上半年，国内充电桩数量将突破1000万台。", true],
  ["据国际能源署预测，到2025年全球电动车销量将达到2500万辆。", false],
  ["该公司预计2025年交付量将超过200万辆。", false],
  ["预计到2030年，全球电动车销量将突破5000万辆。", false],
  ["此前预计2024年将实现盈利，但最终推迟。", false],
  ["2021年公司推出了首款车型。", false],
];

function flags(sentence: string) {
  return checkTemporal(sentence, { currentDate: TODAY });
}

describe("checkTemporal (regex stage)", () => {
  it.each(EN_CASES)("English: %s → flagged %s", (sentence, flagged) => {
    expect(flags(sentence).flagged.length).toBe(flagged ? 1 : 0);
  });

  it.each(ZH_CASES)("Chinese: %s → flagged %s", (sentence, flagged) => {
    expect(flags(sentence).flagged.length).toBe(flagged ? 1 : 0);
  });

  it("reports cue, target date, pastness and attribution of each candidate", () => {
    const result = checkTemporal(
      [
        "# Outlook",
        "",
        "The market will reach $50 billion by 2024. According to Gartner, it will reach $60 billion by 2025.",
        "",
        "预计到2030年，销量将突破5000万辆。",
      ].join("\n"),
      { currentDate: TODAY },
    );
    expect(result.sentences).toBe(3);
    expect(
      result.candidates.map((c) => [
        c.line,
        c.cue,
        c.date.text,
        c.date.periodEnd,
        c.past,
        c.attribution,
        c.flagged,
      ]),
    ).toEqual([
      [3, "will", "2024", "2024-12-31", true, null, true],
      [3, "will", "2025", "2025-12-31", true, "According to", false],
      [5, "预计", "2030年", "2030-12-31", false, null, false],
    ]);
    expect(result.pastPredictive).toBe(2);
    expect(result.errorRate).toBeCloseTo(1 / 3, 10);
    expect(result.candidates[0]!.context).toContain("According to Gartner");
  });

  it("finds the forecaster in the previous sentence when the sentence refers back to it", () => {
    const md = "Gartner published its outlook in 2022. It predicts the market will reach $10B by 2024.";
    expect(checkTemporal(md, { currentDate: TODAY }).flagged).toHaveLength(0);
    const unrelated = "Gartner published its outlook in 2022. The market will reach $10B by 2024.";
    expect(checkTemporal(unrelated, { currentDate: TODAY }).flagged).toHaveLength(1);
  });

  it("treats a period that has not ended yet as not past", () => {
    expect(checkTemporal("Sales will double in 2026.", { currentDate: "2026-03-01" }).flagged).toHaveLength(
      0,
    );
    expect(checkTemporal("Sales will double in 2026.", { currentDate: "2027-01-01" }).flagged).toHaveLength(
      1,
    );
    expect(
      checkTemporal("Sales will double in Q4 2025.", { currentDate: "2025-12-31" }).flagged,
    ).toHaveLength(0);
  });

  it("ignores code blocks and the references section and filters cues by language", () => {
    const md =
      "```\nThe market will reach $5B by 2020.\n```\n\n## References\n\n1. Sales will double by 2020.\n";
    expect(checkTemporal(md, { currentDate: TODAY }).candidates).toHaveLength(0);
    expect(
      checkTemporal("Sales will double by 2024.", { currentDate: TODAY, language: "zh" }).candidates,
    ).toHaveLength(0);
  });

  it("rejects a malformed current date", () => {
    expect(() => checkTemporal("x", { currentDate: "March 2026" })).toThrow(/YYYY-MM-DD/);
  });
});

describe("findDates", () => {
  it("resolves each form to the end of its period", () => {
    const text =
      "Q3 2024, 2025Q1, H1 2025, the second half of 2023, March 2024, Feb 29, 2024, 2024-11, 2023-06-15, 2022年, 2025年第三季度, 2024年下半年, 2024年2月, 2023年5月8日, 2020s, FY2024, 12,2024";
    expect(findDates(text).map((d) => [d.text, d.periodEnd])).toEqual([
      ["Q3 2024", "2024-09-30"],
      ["2025Q1", "2025-03-31"],
      ["H1 2025", "2025-06-30"],
      ["second half of 2023", "2023-12-31"],
      ["March 2024", "2024-03-31"],
      ["Feb 29, 2024", "2024-02-29"],
      ["2024-11", "2024-11-30"],
      ["2023-06-15", "2023-06-15"],
      ["2022年", "2022-12-31"],
      ["2025年第三季度", "2025-09-30"],
      ["2024年下半年", "2024-12-31"],
      ["2024年2月", "2024-02-29"],
      ["2023年5月8日", "2023-05-08"],
    ]);
  });
});

describe("cues and attribution", () => {
  it("finds present and future cues but not past expectations", () => {
    expect(findPredictiveCues("It will grow and is expected to rise.").map((c) => c.text)).toEqual([
      "will",
      "is expected to",
    ]);
    expect(findPredictiveCues("It was expected to rise.")).toEqual([]);
    expect(findPredictiveCues("曾预计销量将达到100万辆").map((c) => c.text)).toEqual(["将"]);
  });

  it("recognises named and generic forecasters but not the author's own voice", () => {
    expect(findAttribution("Goldman Sachs said prices will fall.")).toBe("Goldman Sachs said");
    expect(findAttribution("Prices, forecast by the IMF, will fall.")).toBe("forecast by the IMF");
    expect(findAttribution("A research institute estimates demand will rise.")).toBe("institute estimates");
    expect(findAttribution("Sales will grow (McKinsey, 2023).")).toBe("(McKinsey, 2023)");
    expect(findAttribution("据IDC预测，出货量将增长。")).toBe("据IDC预测");
    expect(findAttribution("工信部表示，产量将增长。")).toBe("工信部表示");
    expect(findAttribution("Revenue expected to reach $5B.")).toBeNull();
    expect(findAttribution("We expect prices to fall.")).toBeNull();
    expect(findAttribution("It will grow in March.")).toBeNull();
  });
});
