/**
 * What the gap check reads, in the research world with pages of long passages: each outline
 * section's evidence within a budget in characters (default 4,000) — passages that fit are shown
 * whole, not three 200-character snippets — and with a smaller budget the passages share it.
 */

import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_GRAPH_CALLS } from "../../../test/research/graph-answers.ts";
import { type ResearchWorld, startResearchWorld, type WorldPages } from "../../../test/research/world.ts";
import type { DossierEvent } from "../../core/events.ts";
import type { RunContext } from "../../kit/run-context.ts";
import { createStrategyRegistry } from "../registry.ts";
import type { StrategyDefinition, StrategyRunInput } from "../types.ts";
import { graphStrategy } from "./definition.ts";
import { GAP_SECTION_CHARS } from "./gap-evidence.ts";
import { type GraphOptions, runGraph } from "./run.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const query = "How is topic adoption changing?";

/** A sentence of about 500 characters about page `n`, without a full stop inside. */
const longSentence = (n: number, what: string) =>
  `Topic ${n} ${what} by ${10 + n} percent in 2025, ${Array.from(
    { length: 9 },
    (_, i) => `with region ${i + 1} of topic ${n} adding ${n + i} suppliers`,
  ).join(", ")}.`;

/** Twenty pages whose first two sentences (what the scripted reader keeps) are long. */
const pages: WorldPages = {
  pages: Array.from({ length: 20 }, (_, i) => ({
    title: `Report ${i + 1}`,
    text: [longSentence(i + 1, "grew"), longSentence(i + 1, "shifted"), "Critics remain unconvinced."].join(
      " ",
    ),
  })),
  // Five pages from the first number of the query, like the usual fake search.
  rank: (q) => {
    const k = (Number(/\d+/.exec(q)?.[0] ?? "1") % 20) + 1;
    return [0, 1, 2, 3, 4].map((i) => ((k - 1 + i) % 20) + 1);
  },
};

function graphWith(options: Partial<GraphOptions>): StrategyDefinition<never> {
  return {
    ...graphStrategy,
    name: "graph-test",
    run: (ctx: RunContext, input: StrategyRunInput<unknown>) =>
      runGraph(ctx, { tools: input.tools, language: input.language, ...options }),
  } as unknown as StrategyDefinition<never>;
}

const research = (options: Partial<GraphOptions>) =>
  world!.research(
    { query, strategy: "graph-test" },
    { strategies: createStrategyRegistry([graphWith(options)]) },
  );

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** Evidence text by id, as the run recorded it. */
const evidenceTexts = (events: DossierEvent[]) =>
  new Map(
    events.flatMap((e) => {
      if (e.type !== "evidence-add") return [];
      const ev = e.evidence as { id: string; text: string };
      return [[ev.id, flat(ev.text)] as const];
    }),
  );

/** The section blocks of the first gap check's prompt, by section id: its `[E…] text` lines. */
function sectionLines(prompt: string): Map<string, { id: string; text: string }[]> {
  const block = prompt.slice(prompt.indexOf("<evidence-by-section>"));
  return new Map(
    block
      .split(/^(?=Section \d+ )/m)
      .slice(1)
      .map((s) => [
        /^Section (\d+) /.exec(s)![1]!,
        [...s.matchAll(/^\[(E\d+)\] (.*)$/gm)].map((m) => ({ id: m[1]!, text: m[2]! })),
      ]),
  );
}

describe("graph's gap check reads each section's evidence within a character budget", () => {
  it("shows a section's passages whole while they fit the default budget", async () => {
    world = await startResearchWorld({ pages, expectCalls: DEFAULT_GRAPH_CALLS });
    const result = await research({});
    const texts = evidenceTexts(result.events);
    const lines = sectionLines(world.script.prompts["ephemeral-rubric"][0]!);
    // Section 1 is served by T-5, which read a page: its two long passages are there, whole.
    const first = lines.get("1")!;
    const long = first.filter((l) => (texts.get(l.id) ?? "").length > 400);
    expect(long.length).toBeGreaterThanOrEqual(2);
    for (const [, section] of lines) {
      const used = section.reduce((sum, l) => sum + l.text.length, 0);
      expect(used).toBeLessThanOrEqual(GAP_SECTION_CHARS);
      // Every passage fits the budget here: each is written out exactly as it was recorded.
      for (const l of section) expect(l.text).toBe(texts.get(l.id));
    }
    expect(first.length).toBeGreaterThan(3);
  });

  it("spreads a smaller budget over the section's passages, each cut to its share", async () => {
    world = await startResearchWorld({ pages, expectCalls: DEFAULT_GRAPH_CALLS });
    const budget = 600;
    const result = await research({ gapChars: budget });
    const texts = evidenceTexts(result.events);
    for (const prompt of world.script.prompts["ephemeral-rubric"]) {
      for (const [, section] of sectionLines(prompt)) {
        // At most one passage per 250 characters of the budget, their text within it (the `…`
        // marks of what was left out aside).
        expect(section.length).toBeLessThanOrEqual(budget / 250);
        const used = section.reduce((sum, l) => sum + l.text.replace(/ ?…/g, "").length, 0);
        expect(used).toBeLessThanOrEqual(budget);
      }
    }
    const first = sectionLines(world.script.prompts["ephemeral-rubric"][0]!).get("1")!;
    // Two passages share the budget: the long one is cut, not dropped for the first to fill it.
    expect(first).toHaveLength(2);
    const cut = first.filter((l) => l.text !== texts.get(l.id));
    expect(cut.length).toBeGreaterThan(0);
    for (const l of first) expect(l.text.replace(/ ?…/g, "").length).toBeLessThanOrEqual(budget / 2);
  });
});
