import { describe, expect, it } from "vitest";
import { checkExtendPlan, checkInitPlan, checkSearch, checkWrite, parseTagged } from "./format.ts";
import { citationsToEvidence, citeCommands, citedKeys, evidenceToCitations } from "./keys.ts";

const plan = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ title: `Part ${i + 1}`, plan: "What it covers" }));
const act = (value: unknown) => JSON.stringify(value);
const error = (r: { ok: boolean; error?: string }) => (r.ok ? null : r.error);

describe("native answer format", () => {
  it("takes the first thought and action, across lines; a missing thought is tolerated", () => {
    expect(parseTagged("<thought>a\nb</thought> x <action>\n{}\n</action><action>2</action>")).toEqual({
      thought: "a\nb",
      action: "{}",
    });
    expect(parseTagged("<action>1</action>")).toEqual({ thought: null, action: "1" });
    expect(parseTagged("<thought>t</thought><action>unclosed")).toEqual({ thought: "t", action: null });
  });

  it("requires exactly the search keys and 1-5 non-empty keywords", () => {
    expect(checkSearch(act({ name: "search", keywords: ["a", "b"] }))).toEqual({
      ok: true,
      value: { name: "search", keywords: ["a", "b"] },
    });
    expect(error(checkSearch(act({ name: "search", keywords: ["a"], why: "x" })))).toMatch(
      /exactly the keys/,
    );
    expect(error(checkSearch(act({ name: "search", keywords: [] })))).toMatch(/non-empty list/);
    expect(error(checkSearch(act({ name: "search", keywords: ["a", ""] })))).toMatch(/non-empty string/);
    expect(error(checkSearch(act({ name: "search", keywords: ["1", "2", "3", "4", "5", "6"] })))).toMatch(
      /at most 5/,
    );
    expect(error(checkSearch('{"name": "search", "keywords": [keyword-1]}'))).toMatch(/not valid JSON/);
    expect(error(checkSearch(act({ name: "init-plan" })))).toMatch(/one of search/);
    expect(error(checkSearch(null))).toMatch(/no <action>/);
  });

  it("requires exactly the init-plan keys, 3-12 sections of exactly {title, plan}, in the run's language", () => {
    expect(checkInitPlan(act({ name: "init-plan", title: "T", sections: plan(3) }), "en").ok).toBe(true);
    expect(checkInitPlan(act({ name: "init-plan", title: "T", sections: plan(12) }), "en").ok).toBe(true);
    expect(error(checkInitPlan(act({ name: "init-plan", title: "T", sections: plan(2) }), "en"))).toMatch(
      /3-12 sections, not 2/,
    );
    expect(error(checkInitPlan(act({ name: "init-plan", title: "T", sections: plan(13) }), "en"))).toMatch(
      /not 13/,
    );
    const extra = [...plan(2), { title: "X", plan: "Y", level: 1 }];
    expect(error(checkInitPlan(act({ name: "init-plan", title: "T", sections: extra }), "en"))).toMatch(
      /exactly the keys title and plan/,
    );
    expect(error(checkInitPlan(act({ name: "init-plan", title: "", sections: plan(3) }), "en"))).toMatch(
      /title must be/,
    );
    const zh = [1, 2, 3].map(() => ({ title: "热泵效率", plan: "说明热泵在寒冷气候下的效率" }));
    expect(checkInitPlan(act({ name: "init-plan", title: "热泵报告", sections: zh }), "zh").ok).toBe(true);
    expect(error(checkInitPlan(act({ name: "init-plan", title: "热泵报告", sections: zh }), "en"))).toMatch(
      /language/,
    );
  });

  it("allows extend-plan of an expandable level-1/2 position into 2-7 subsections, and nop only when offered", () => {
    const rules = { language: "en", expandable: new Set(["section-1", "section-2.1"]), nop: true };
    const extend = (position: string, n = 2) => act({ name: "extend-plan", position, subsections: plan(n) });
    expect(checkExtendPlan(extend("section-1"), rules).ok).toBe(true);
    expect(checkExtendPlan(extend("section-2.1", 7), rules).ok).toBe(true);
    expect(error(checkExtendPlan(extend("section-2.1", 8), rules))).toMatch(/2-7 subsections, not 8/);
    expect(error(checkExtendPlan(extend("section-1", 1), rules))).toMatch(/not 1/);
    expect(error(checkExtendPlan(extend("section-2"), rules))).toMatch(/cannot be expanded/);
    expect(error(checkExtendPlan(extend("section-2.1.1"), rules))).toMatch(/too deep/);
    expect(error(checkExtendPlan(extend("Section 1"), rules))).toMatch(/not a position/);
    expect(checkExtendPlan(act({ name: "nop" }), rules)).toEqual({ ok: true, value: { name: "nop" } });
    expect(error(checkExtendPlan(act({ name: "nop", reason: "done" }), rules))).toMatch(
      /exactly the key name/,
    );
    expect(error(checkExtendPlan(act({ name: "nop" }), { ...rules, nop: false }))).toMatch(
      /one of extend-plan$/,
    );
    expect(error(checkExtendPlan(act({ name: "terminate" }), rules))).toMatch(/one of extend-plan, nop/);
  });

  it("checks a WRITE as the seed's hard mode does, with cited keys checked against this step's passages", () => {
    const keys = new Set(["textid1", "textid2"]);
    const rules = { language: "en", keys };
    const long = "Heat pumps kept their efficiency in the cold according to the field trial";
    expect(checkWrite(`${long} \\cite{textid1, textid2}.`, rules)).toEqual({
      ok: true,
      value: { name: "write", content: `${long} \\cite{textid1, textid2}.` },
    });
    expect(error(checkWrite(`${long} \\cite{textid1}, see C# code.`, rules))).toMatch(/#/);
    expect(error(checkWrite(`${long} bibkey:textid1 \\cite{textid1}.`, rules))).toMatch(/bibkey/);
    expect(error(checkWrite("Short \\cite{textid1}.", rules))).toMatch(/longer than 50/);
    expect(error(checkWrite(`${long}.`, rules))).toMatch(/cites nothing/);
    expect(error(checkWrite(`${long} \\cite{textid3}.`, rules))).toMatch(
      /not retrieved for this section: textid3/,
    );
    // The seed counts \cite commands, not keys: 12 pass, 13 do not.
    expect(checkWrite(`${long} ${"\\cite{textid1} ".repeat(12)}`, rules).ok).toBe(true);
    expect(error(checkWrite(`${long} ${"\\cite{textid1} ".repeat(13)}`, rules))).toMatch(/at most 12/);
    expect(
      error(
        checkWrite(
          `热泵在寒冷气候下仍然保持较高的能效，现场试验的季节性能系数超过二 ${long} \\cite{textid1}`,
          rules,
        ),
      ),
    ).toMatch(/language/);
    expect(error(checkWrite(null, rules))).toMatch(/longer than 50/);
  });

  it("maps passage keys to evidence ids and back", () => {
    const text = "A \\cite{textid3, textid12} b \\citep{textid3} c \\cite{other}.";
    expect(citedKeys(text)).toEqual(["textid3", "textid12", "other"]);
    expect(citeCommands(text)).toBe(3);
    expect(citationsToEvidence(text)).toBe("A [E3, E12] b [E3] c .");
    expect(evidenceToCitations("A [E3, E12] b [E3].")).toBe("A \\cite{textid3, textid12} b \\cite{textid3}.");
  });
});
