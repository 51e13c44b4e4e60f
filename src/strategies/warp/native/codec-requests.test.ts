/**
 * The native codecs' requests and decodings beyond the golden transcripts: each request is the
 * released prompt of its action over the state as the released code renders it (the run's query,
 * date and language, a replaced opening when the run names one), with no system message; a reply
 * without a thought decodes to an action without one; a refusal names the rule that was broken.
 */

import { describe, expect, it } from "vitest";
import type { Outline } from "../../../core/outline.ts";
import type { Evidence } from "../../../core/source.ts";
import { NO_CALL_YET } from "../../../kit/research-done.ts";
import type { WarpState } from "../draft.ts";
import { warpRoleSampling } from "../sampling.ts";
import { AGENTCPM, agentcpmCodecs } from "./codecs.ts";
import { extendPlanPrompt, initPlanPrompt, searchPrompt, writePrompt } from "./prompts.ts";
import { instructionFor, renderPassages, renderSurvey } from "./render.ts";

const ctx = { query: "Wie arbeiten Wärmepumpen bei Kälte?", currentDate: "2026-03-01" };
const sampling = warpRoleSampling({ protocol: "native", temperature: 0.4 });
const codecs = agentcpmCodecs(ctx, sampling);
const base = { query: ctx.query, date: ctx.currentDate, language: "de" };

/** Section 1's content: 200 words, long enough to be shortened where a view shortens. */
const LONG = Array.from({ length: 200 }, (_, i) => `w${i + 1}`).join(" ");
const outline: Outline = {
  sections: [
    { id: "1", title: "Effizienz", plan: "Wie effizient", content: `${LONG} [E3].`, children: [] },
    { id: "2", title: "Kosten", plan: "Was es kostet", children: [] },
    { id: "3", title: "Netz", plan: "Spitzenlast", children: [] },
  ],
};
const state: WarpState = {
  question: ctx.query,
  title: "Wärmepumpen bei Kälte",
  outline,
  citations: new Map(),
  expanded: new Set(["3"]),
};
const target = { ...outline.sections[1]!, depth: 1 };
const passages = [3, 12].map(
  (n) => ({ id: `E${n}`, sourceId: "S1", text: `Passage ${n}.` }) as unknown as Evidence,
);
const only = (content: string, role: string) => ({
  role,
  messages: [{ role: "user", content }],
  temperature: 0.4,
  topP: 0.8,
  maxOutputTokens: 2048,
});

describe("native requests", () => {
  it("are text codecs of the agentcpm protocol", () => {
    expect(AGENTCPM).toBe("agentcpm");
    for (const codec of Object.values(codecs))
      expect(codec).toMatchObject({ kind: "text", name: "agentcpm" });
  });

  it("search: the abbreviated survey and the cursor's instruction; before any tool call the reminder closes it", () => {
    const prompt = searchPrompt({
      ...base,
      outline: renderSurvey(state.title, outline, { mode: "abbreviated" }),
      instruction: instructionFor("2"),
    });
    expect(prompt).toContain(ctx.query);
    // The searcher sees the long section shortened, the writer next to it and the deepener whole.
    expect(prompt).toContain("w100 ... ");
    expect(prompt).not.toContain("w100 w101");
    expect(codecs.search.request({ state, target, language: "de" })).toEqual(only(prompt, "searcher"));
    const first = searchPrompt({
      ...base,
      outline: renderSurvey(state.title, outline, { mode: "abbreviated" }),
      instruction: instructionFor(),
    });
    expect(codecs.search.request({ state, language: "de", noCallYet: true })).toEqual(
      only(`${first}\n\n${NO_CALL_YET}`, "searcher"),
    );
    expect(codecs.search.request({ state, language: "de", noCallYet: false })).toEqual(
      only(first, "searcher"),
    );
  });

  it("init-plan, write and extend-plan: the passages as bibkey blocks, the survey around the cursor, the whole report", () => {
    const initPlan = initPlanPrompt({ ...base, information: renderPassages(passages) });
    expect(initPlan).toContain("2026-03-01");
    expect(codecs.initialize.request({ question: ctx.query, passages, language: "de" })).toEqual(
      only(initPlan, "planner"),
    );
    const write = writePrompt({
      ...base,
      survey: renderSurvey(state.title, outline, { mode: "local", cursor: "2" }),
      instruction: instructionFor("2"),
      information: renderPassages(passages),
    });
    expect(write).toContain("w100 w101");
    expect(codecs.write.request({ state, target, passages, language: "de" })).toEqual(only(write, "writer"));
    for (const forced of [false, true]) {
      const report = extendPlanPrompt({
        ...base,
        report: renderSurvey(state.title, outline, { mode: "full" }),
        forced,
      });
      expect(report).toContain("w100 w101");
      expect(codecs.deepen.request({ state, language: "de", forced, expansionsLeft: 3 })).toEqual(
        only(report, "planner"),
      );
    }
  });

  it("a run's own openings replace the released ones, each in its own prompt", () => {
    const intros = {
      search: "SEARCH-INTRO",
      initPlan: "INIT-INTRO",
      write: "WRITE-INTRO",
      extendPlan: "EXTEND-INTRO",
    };
    const own = agentcpmCodecs(ctx, sampling, intros);
    const text = (r: { messages: { content: string }[] }) => r.messages[0]!.content;
    const prompts = {
      search: text(own.search.request({ state, target, language: "de" })),
      initPlan: text(own.initialize.request({ question: ctx.query, passages, language: "de" })),
      write: text(own.write.request({ state, target, passages, language: "de" })),
      extendPlan: text(own.deepen.request({ state, language: "de", forced: false, expansionsLeft: 3 })),
    };
    for (const [name, prompt] of Object.entries(prompts)) {
      for (const [other, intro] of Object.entries(intros)) {
        if (other === name) expect(prompt.startsWith(intro)).toBe(true);
        else expect(prompt).not.toContain(intro);
      }
    }
  });
});

describe("native decodings", () => {
  const plan = (titles: string[]) => titles.map((title) => ({ title, plan: `Über ${title}` }));

  it("a reply without a thought is an action without one; the title is trimmed", () => {
    const reply = `<action>${JSON.stringify({ name: "init-plan", title: "  Wärmepumpen  ", sections: plan(["Effizienz", "Kosten", "Netz"]) })}</action>`;
    expect(codecs.initialize.decode(reply, { question: ctx.query, passages, language: "de" })).toEqual({
      ok: true,
      action: {
        name: "initialize",
        title: "Wärmepumpen",
        sections: plan(["Effizienz", "Kosten", "Netz"]),
        native: "init-plan",
      },
    });
    const search = '<action>{"name": "search", "keywords": ["Wärmepumpe COP"]}</action>';
    expect(codecs.search.decode(search, { state, language: "de" })).toEqual({
      ok: true,
      action: { name: "search", keywords: ["Wärmepumpe COP"] },
    });
  });

  it("write: the content's keys are checked against this step's passages; extend-plan against the expandable sections", () => {
    const content = "Die Installation kostete im Bezirk rund zehntausend Euro pro Haus \\cite{textid3}.";
    expect(
      codecs.write.decode(`<action>${content}</action>`, { state, target, passages, language: "de" }),
    ).toEqual({
      ok: true,
      action: {
        name: "write",
        position: "section-2",
        content: "Die Installation kostete im Bezirk rund zehntausend Euro pro Haus [E3].",
        raw: content,
      },
    });
    expect(
      codecs.write.decode(`<action>${content.replace("textid3", "textid4")}</action>`, {
        state,
        target,
        passages,
        language: "de",
      }),
    ).toEqual({ ok: false, error: "cited keys not retrieved for this section: textid4" });
    const extend = (position: string) =>
      `<action>${JSON.stringify({ name: "extend-plan", position, subsections: plan(["Anschaffung", "Betrieb"]) })}</action>`;
    const deepen = { state, language: "de", forced: false, expansionsLeft: 3 };
    expect(codecs.deepen.decode(extend("section-1"), deepen)).toMatchObject({
      ok: true,
      action: { name: "expand", position: "section-1", native: "extend-plan" },
    });
    // Section 3 was expanded before: it is no candidate.
    expect(codecs.deepen.decode(extend("section-3"), deepen)).toEqual({
      ok: false,
      error: "section-3 cannot be expanded",
    });
    const english = `<action>${JSON.stringify({
      name: "extend-plan",
      position: "section-1",
      subsections: [
        { title: "Installation", plan: "Up-front costs" },
        { title: "Running", plan: "Tariffs" },
      ],
    })}</action>`;
    expect(codecs.deepen.decode(english, { ...deepen, language: "zh" })).toEqual({
      ok: false,
      error: "the subsections are not in the language of the query",
    });
  });
});
