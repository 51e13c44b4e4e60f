/**
 * Every rule of AgentCPM-Report's answer format refuses with its own reason (the reason the
 * re-sample is recorded with), and an answer that keeps every rule is read as exactly the action
 * it states: the malformed shapes a checkpoint can emit — a list or a string for an object, a
 * key missing or misspelt, an empty field, a position that only looks like one — each named.
 */

import { describe, expect, it } from "vitest";
import {
  checkExtendPlan,
  checkInitPlan,
  checkSearch,
  checkWrite,
  finishingInstead,
  parseActionObject,
  parseTagged,
} from "./format.ts";

const act = (value: unknown) => JSON.stringify(value);
const error = (r: { ok: boolean; error?: string }) => (r.ok ? null : r.error);
const plan = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ title: `Part ${i + 1}`, plan: "What it covers" }));

describe("the tags and the action object", () => {
  it("trims the thought and the action", () => {
    expect(parseTagged("<thought>\n  weigh it  \n</thought><action>  {} </action>")).toEqual({
      thought: "weigh it",
      action: "{}",
    });
  });

  it("refuses an action that is JSON but no object, or names no allowed action", () => {
    for (const text of ["[1]", "null", "5", '"search"'])
      expect(error(parseActionObject(text, ["search"]))).toBe("the action is not a JSON object");
    expect(error(parseActionObject('{"keywords": ["a"]}', ["search"]))).toBe(
      "the action name must be one of search",
    );
    expect(error(parseActionObject('{"name": 1}', ["search", "nop"]))).toBe(
      "the action name must be one of search, nop",
    );
    expect(parseActionObject('{"name": "nop"}', ["search", "nop"])).toEqual({
      ok: true,
      value: { name: "nop" },
    });
  });
});

describe("search", () => {
  it("allows five keywords; refuses misspelt keys and keywords that are not strings", () => {
    const five = ["a", "b", "c", "d", "e"];
    expect(checkSearch(act({ name: "search", keywords: five }))).toEqual({
      ok: true,
      value: { name: "search", keywords: five },
    });
    expect(error(checkSearch(act({ name: "search", keyword: ["a"] })))).toBe(
      "a search action has exactly the keys name and keywords",
    );
    expect(error(checkSearch(act({ name: "search", keywords: ["a", ["b"]] })))).toBe(
      "every keyword must be a non-empty string",
    );
    expect(error(checkSearch(act({ name: "search", keywords: "heat pump" })))).toBe(
      "keywords must be a non-empty list",
    );
  });
});

describe("init-plan", () => {
  const init = (value: object) => error(checkInitPlan(act({ name: "init-plan", ...value }), "en"));

  it("reads exactly the title and sections stated", () => {
    expect(checkInitPlan(act({ name: "init-plan", title: "Heat pumps", sections: plan(3) }), "en")).toEqual({
      ok: true,
      value: { name: "init-plan", title: "Heat pumps", sections: plan(3) },
    });
  });

  it("refuses a missing or misspelt key, and a title that is no string", () => {
    const keys = "an init-plan action has exactly the keys name, title and sections";
    expect(init({ sections: plan(3) })).toBe(keys);
    expect(init({ titel: "T", sections: plan(3) })).toBe(keys);
    expect(init({ title: ["Heat pumps"], sections: plan(3) })).toBe("the title must be a non-empty string");
    expect(error(checkInitPlan(null, "en"))).toBe("no <action>…</action> in the answer");
  });

  it("refuses sections that are no list, empty, or not each an object of a non-empty title and plan", () => {
    expect(init({ title: "T", sections: { title: "A", plan: "B" } })).toBe(
      "sections must be a non-empty list",
    );
    expect(init({ title: "T", sections: [] })).toBe("sections must be a non-empty list");
    for (const item of [null, ["A", "B"], "A: B"])
      expect(init({ title: "T", sections: [...plan(2), item] })).toBe(
        "each of the sections must be an object",
      );
    expect(init({ title: "T", sections: [...plan(2), { plan: "B" }] })).toBe(
      "each of the sections must have exactly the keys title and plan",
    );
    expect(init({ title: "T", sections: [...plan(2), { title: "", plan: "B" }] })).toBe(
      "each of the sections needs a title and a plan",
    );
    expect(init({ title: "T", sections: [...plan(2), { title: "A", plan: "" }] })).toBe(
      "each of the sections needs a title and a plan",
    );
  });

  it("checks the language of every field on its own: a link closing a title hides nothing after it", () => {
    const sections = [...plan(2), { title: "Sources https://example.org", plan: "热泵" }];
    expect(init({ title: "T", sections })).toBe("the outline is not in the language of the query");
  });
});

describe("extend-plan and nop", () => {
  const rules = {
    language: "en",
    expandable: new Set(["section-1", "section-12", "section-2.10"]),
    nop: true,
  };
  const extend = (value: object, r = rules) => checkExtendPlan(act({ name: "extend-plan", ...value }), r);

  it("reads exactly the position and subsections stated, at any number of digits", () => {
    for (const position of ["section-12", "section-2.10"])
      expect(extend({ position, subsections: plan(2) })).toEqual({
        ok: true,
        value: { name: "extend-plan", position, subsections: plan(2) },
      });
  });

  it("names what is wrong with the keys, the position and the subsections", () => {
    expect(error(extend({ position: "section-1" }))).toBe(
      "an extend-plan action has exactly the keys name, position and subsections",
    );
    expect(error(extend({ position: 1, subsections: plan(2) }))).toBe(
      "the position must be a non-empty string",
    );
    for (const position of ["xsection-1", "section-1x", "section-1.", "section-"])
      expect(error(extend({ position, subsections: plan(2) }))).toBe(
        `${position} is not a position like section-2.1`,
      );
    expect(error(extend({ position: "section-1", subsections: [plan(1)[0], { title: "A" }] }))).toBe(
      "each of the subsections must have exactly the keys title and plan",
    );
    const short = [
      { title: "安装", plan: "费用" },
      { title: "运行", plan: "电价" },
    ];
    expect(error(extend({ position: "section-1", subsections: short }))).toBe(
      "the subsections are not in the language of the query",
    );
    // Few characters still decide the language: nothing else is counted with them.
    expect(extend({ position: "section-1", subsections: short }, { ...rules, language: "zh" })).toEqual({
      ok: true,
      value: { name: "extend-plan", position: "section-1", subsections: short },
    });
    expect(error(checkExtendPlan(null, rules))).toBe("no <action>…</action> in the answer");
  });
});

describe("write", () => {
  const keys = new Set(["textid1", "textid2"]);
  const rules = { language: "en", keys };

  it("refuses content of 50 characters or less, spaces aside, and reads it trimmed", () => {
    const cite = " \\cite{textid1}";
    const fifty = `${"a".repeat(50 - cite.length)}${cite}`;
    expect(fifty).toHaveLength(50);
    expect(error(checkWrite(fifty, rules))).toBe("the content must be longer than 50 characters");
    expect(error(checkWrite(`   ${fifty}   `, rules))).toBe("the content must be longer than 50 characters");
    expect(checkWrite(`  b${fifty}\n`, rules)).toEqual({
      ok: true,
      value: { name: "write", content: `b${fifty}` },
    });
  });

  it("refuses the word bibkey in any case, and names every key not retrieved", () => {
    const long = "Heat pumps kept their efficiency in the cold according to the field trial";
    expect(error(checkWrite(`${long} BibKey \\cite{textid1}.`, rules))).toBe(
      "the content must not contain the word bibkey",
    );
    expect(error(checkWrite(`${long} \\cite{textid3, textid1, textid4}.`, rules))).toBe(
      "cited keys not retrieved for this section: textid3, textid4",
    );
  });
});

describe("an answer in the search state that is no search", () => {
  it("is a wish to finish (a nop), to write (prose), or neither", () => {
    expect(finishingInstead(null)).toBeNull();
    expect(finishingInstead("")).toBeNull();
    expect(finishingInstead("Heat pumps kept their efficiency { in the cold }.")).toBe("write");
    expect(finishingInstead('{"name": "nop"}')).toBe("finish");
    expect(finishingInstead('{"name": "search", "keywords": ["a"]}')).toBeNull();
    expect(finishingInstead('{"name": "nop"')).toBeNull();
    expect(finishingInstead("{nop}")).toBeNull();
  });
});
