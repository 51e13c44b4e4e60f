/**
 * Golden transcripts of warp's native protocol: replies written in AgentCPM-Report's released
 * format — `<thought>` then `<action>`, the JSON actions `search`, `init-plan`, `extend-plan` and
 * `nop`, a write's Markdown citing `\cite{textidN}` keys — replayed through warp's native codecs:
 * each decodes to the action it means, and each request is one user message sampled as the
 * released code samples (temperature 0.7, top-p 0.8, 2,048 output tokens).
 */

import { describe, expect, it } from "vitest";
import type { Outline } from "../../../core/outline.ts";
import type { Evidence } from "../../../core/source.ts";
import type { WarpState } from "../draft.ts";
import { warpRoleSampling } from "../sampling.ts";
import { agentcpmCodecs } from "./codecs.ts";

const ctx = { query: "How do heat pumps perform in cold climates?", currentDate: "2026-03-01" };
const codecs = agentcpmCodecs(ctx, warpRoleSampling({ protocol: "native" }));

const outline: Outline = {
  sections: [
    { id: "1", title: "Efficiency", plan: "How efficient", content: "Written [E3].", children: [] },
    { id: "2", title: "Costs", plan: "What it costs", children: [] },
    { id: "3", title: "Grid", plan: "Peak demand", content: "Written [E7].", children: [] },
  ],
};
const state: WarpState = {
  question: ctx.query,
  title: "Heat pumps in cold climates",
  outline,
  citations: new Map(),
  expanded: new Set(),
};
const target = { ...outline.sections[1]!, depth: 1 };
const passages = [3, 7, 12].map(
  (n) => ({ id: `E${n}`, sourceId: "S1", text: `Passage ${n}.` }) as unknown as Evidence,
);
const lang = { language: "en" };

/** The released transcripts, one per action. */
const T = {
  search:
    '<thought> The outline needs material on cold-climate efficiency. </thought>\n<action> {"name": "search", "keywords": ["heat pump COP", "cold climate", "heat pump COP"]} </action>',
  initPlan:
    '<thought>Three aspects cover the query.</thought>\n<action>\n{"name": "init-plan", "title": "Heat pumps in cold climates", "sections": [{"title": "Efficiency", "plan": "Seasonal COP in the cold"}, {"title": "Costs", "plan": "Installation and running costs"}, {"title": "Grid", "plan": "Winter peak demand"}]}\n</action>',
  write:
    "<thought> Use textid3 and textid12. </thought>\n<action> Installation cost about 10,000 euros per home in the district survey \\cite{textid3, textid12}, and running costs fell where tariffs were flat \\cite{textid12}. </action>",
  extendPlan:
    '<thought> Costs is the thinnest section. </thought>\n<action> {"name": "extend-plan", "position": "section-2", "subsections": [{"title": "Installation", "plan": "Up-front costs"}, {"title": "Running costs", "plan": "Tariffs and upkeep"}]} </action>',
  nop: '<thought> The report is complete. </thought>\n<action> {"name": "nop"} </action>',
};

describe("native transcripts replayed through the codecs", () => {
  it("search: the keywords, repeated ones once", () => {
    expect(codecs.search.decode(T.search, { state, ...lang })).toEqual({
      ok: true,
      action: {
        name: "search",
        keywords: ["heat pump COP", "cold climate"],
        thought: "The outline needs material on cold-climate efficiency.",
      },
    });
  });

  it("init-plan: the title and the level-1 sections", () => {
    const decoded = codecs.initialize.decode(T.initPlan, { question: ctx.query, passages, ...lang });
    expect(decoded).toEqual({
      ok: true,
      action: {
        name: "initialize",
        title: "Heat pumps in cold climates",
        sections: [
          { title: "Efficiency", plan: "Seasonal COP in the cold" },
          { title: "Costs", plan: "Installation and running costs" },
          { title: "Grid", plan: "Winter peak demand" },
        ],
        thought: "Three aspects cover the query.",
        native: "init-plan",
      },
    });
  });

  it("write: the node's content, its \\cite keys as evidence citations", () => {
    const decoded = codecs.write.decode(T.write, { state, target, passages, ...lang });
    expect(decoded).toEqual({
      ok: true,
      action: {
        name: "write",
        position: "section-2",
        content:
          "Installation cost about 10,000 euros per home in the district survey [E3, E12], and running costs fell where tariffs were flat [E12].",
        thought: "Use textid3 and textid12.",
        raw: "Installation cost about 10,000 euros per home in the district survey \\cite{textid3, textid12}, and running costs fell where tariffs were flat \\cite{textid12}.",
      },
    });
  });

  it("extend-plan: the position and its subsections; nop: the end of the deepening", () => {
    const deepen = { state, ...lang, forced: false, expansionsLeft: 5 };
    expect(codecs.deepen.decode(T.extendPlan, deepen)).toEqual({
      ok: true,
      action: {
        name: "expand",
        position: "section-2",
        subsections: [
          { title: "Installation", plan: "Up-front costs" },
          { title: "Running costs", plan: "Tariffs and upkeep" },
        ],
        thought: "Costs is the thinnest section.",
        native: "extend-plan",
      },
    });
    expect(codecs.deepen.decode(T.nop, deepen)).toEqual({
      ok: true,
      action: { name: "terminate", thought: "The report is complete.", native: "nop" },
    });
    // Forced expansion offers no nop.
    expect(codecs.deepen.decode(T.nop, { ...deepen, forced: true })).toMatchObject({ ok: false });
  });

  it("a transcript in another protocol's tags is refused, not guessed", () => {
    const renamed = T.search.replace(/<(\/?)action>/g, "<$1tool_call>");
    expect(codecs.search.decode(renamed, { state, ...lang })).toEqual({
      ok: false,
      error: "no <action>…</action> in the answer",
    });
    expect(
      codecs.write.decode(T.write.replace("\\cite{textid3, textid12}", "\\cite{textid3, 12}"), {
        state,
        target,
        passages,
        ...lang,
      }),
    ).toEqual({
      ok: false,
      error: "cited keys not retrieved for this section: 12",
    });
  });

  it("every request is one user message sampled at 0.7 / 0.8 with at most 2,048 output tokens", () => {
    const requests = [
      codecs.search.request({ state, ...lang }),
      codecs.initialize.request({ question: ctx.query, passages, ...lang }),
      codecs.write.request({ state, target, passages, ...lang }),
      codecs.deepen.request({ state, ...lang, forced: false, expansionsLeft: 5 }),
    ];
    expect(requests.map((r) => r.role)).toEqual(["searcher", "planner", "writer", "planner"]);
    for (const r of requests) {
      expect(r.messages.map((m) => m.role)).toEqual(["user"]);
      expect(r).toMatchObject({ temperature: 0.7, topP: 0.8, maxOutputTokens: 2048 });
    }
  });
});
