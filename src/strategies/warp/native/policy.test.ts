/**
 * warp with `protocol: native` against a model that answers exactly as AgentCPM-Report's
 * checkpoints do (test/warp/native-kit.ts), over the wire of an OpenAI-compatible server.
 */

import { afterEach, describe, expect, it } from "vitest";
import { cleanup, eventsOf, WARP_QUESTION } from "../../../../test/warp/kit.ts";
import {
  bibkeys,
  type NativeModel,
  type NativeModelOptions,
  nativeDossier,
  startNativeModel,
  tagged,
  userMessage,
} from "../../../../test/warp/native-kit.ts";
import { citedNumbers } from "../../../core/citations.ts";
import type { DossierEvent } from "../../../core/events.ts";
import { NO_CALL_YET } from "../../../kit/research-done.ts";

let model: NativeModel | undefined;
afterEach(async () => {
  await cleanup();
  await model?.server.close();
  model = undefined;
});

const question = WARP_QUESTION;
const of = eventsOf;
const written = (events: DossierEvent[]) =>
  events.flatMap((e) => (e.type === "section-written" ? [e.sectionId] : []));

async function runNative(options: NativeModelOptions, strategyOptions: Record<string, unknown> = {}) {
  model = await startNativeModel(options);
  const { dossier, docs } = nativeDossier(model);
  const events: DossierEvent[] = [];
  const result = await dossier.research(question, {
    strategy: "warp",
    strategyOptions: { protocol: "native", ...strategyOptions },
    docs,
    sources: "local-only",
    onEvent: (e) => events.push(e),
  }).done;
  expect(model.unknown).toEqual([]);
  return { result, events, bodies: model.server.requests.map((r) => r.body as Record<string, unknown>) };
}

describe("warp native protocol", () => {
  it("runs a checkpoint-format model to a report whose every citation resolves", async () => {
    const { result, events, bodies } = await runNative({});
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("completed");
    expect(of(events, "format-error")).toEqual([]);
    expect(of(events, "warning")).toEqual([]);

    // The seed's control flow: search → init-plan → (search → write) per leaf → extend-plan …
    const steps = of(events, "trajectory-step");
    expect(steps.map((s) => s.action)).toEqual([
      "search",
      "initialize",
      ...["search", "write", "search", "write", "search", "write"],
      "expand",
      ...["search", "write", "search", "write"],
      "terminate",
    ]);
    expect(steps[1]!.answer).toMatchObject({
      native: "init-plan",
      thought: "Three aspects cover the query.",
    });
    expect(steps.at(-1)!.answer).toMatchObject({ native: "nop" });
    expect(written(events)).toEqual(["1", "2", "3", "1.1", "1.2"]);

    // Every request is one user message rebuilt from the state, sampled as the paper did.
    expect(bodies).toHaveLength(steps.length);
    for (const body of bodies) {
      const messages = body.messages as { role: string }[];
      expect(messages.map((m) => m.role)).toEqual(["user"]);
      expect(body).toMatchObject({ temperature: 0.7, top_p: 0.8, max_tokens: 2048 });
    }

    // Passages are bibkey:textidN blocks; a WRITE's \cite keys become evidence citations, and
    // later prompts show the draft in the protocol's own form.
    const writes = model!.prompts.write;
    const keys = bibkeys(writes[0]!);
    expect(keys.length).toBeGreaterThan(1);
    const first = steps.find((s) => s.action === "write")!.answer as { content: string; raw: string };
    expect(first.raw).toContain(`\\cite{${keys[0]}, ${keys[1]}}`);
    expect(first.content).toContain(`[E${keys[0]!.slice(6)}, E${keys[1]!.slice(6)}]`);
    expect(writes[1]).toContain(`[OK] Content of section-1: the trials measured`);
    expect(writes[1]).toContain(`\\cite{${keys[0]}, ${keys[1]}}`);
    expect(writes[1]).toMatch(/^# Section-2 \[Costs\]: \[PLAN\] Explain costs with evidence$/m);

    // The report: headings by depth, every citation numbered and resolved, nothing dropped.
    const report = result.report!;
    expect(report.body).toContain("## Costs\n");
    expect(report.body).toContain("### Field trials\n");
    expect(report.body).not.toContain("\\cite");
    expect(report.checks.citations.dropped).toBe(0);
    const numbers = citedNumbers(report.body);
    expect(numbers.length).toBeGreaterThan(0);
    expect(Math.max(...numbers)).toBe(report.references.length);
    for (const ref of report.references) expect(ref.locator).toMatch(/^note-\d+\.md#/);
  });

  it("samples the same state again after a malformed tag or key set, and counts each failure", async () => {
    const { result, events } = await runNative({
      first: {
        // No closing action tag.
        search: [`<thought> keywords </thought>\n<action> {"name": "search", "keywords": ["heat pump"]}`],
        // A key more than init-plan has; then a section without its plan.
        "init-plan": [
          tagged("plan", JSON.stringify({ name: "init-plan", title: "T", sections: [], outline: [] })),
          tagged(
            "plan",
            JSON.stringify({ name: "init-plan", title: "T", sections: [{ title: "A" }, { title: "B" }] }),
          ),
        ],
        // A heading; then a key this section was not given.
        write: [
          tagged("w", "## Heading\n\nA paragraph long enough to pass the length rule \\cite{textid1}."),
          tagged("w", "A paragraph long enough to pass the length rule, citing \\cite{textid999}."),
        ],
        // The seed's names only: "expand" is not an action of the protocol.
        "extend-plan": [tagged("x", JSON.stringify({ name: "expand", position: "section-1" }))],
      },
    });
    expect(result.status).toBe("completed");
    const errors = of(events, "format-error");
    expect(errors.map((e) => e.error)).toEqual([
      "no <action>…</action> in the answer",
      "an init-plan action has exactly the keys name, title and sections",
      "each of the sections must have exactly the keys title and plan",
      "the content must not contain #",
      "cited keys not retrieved for this section: textid999",
      "the action name must be one of extend-plan, nop",
    ]);
    expect(errors.map((e) => e.role)).toEqual([
      "searcher",
      "planner",
      "planner",
      "writer",
      "writer",
      "planner",
    ]);
    // Each failed call is counted on its llm-end, and no fallback was taken.
    const counted = of(events, "llm-end").filter((e) => e.formatErrors === 1);
    expect(counted.map((e) => e.callId)).toEqual(errors.map((e) => e.callId));
    expect(of(events, "warning")).toEqual([]);
    // Same state, same prompt: the retry is the failed prompt again, with no feedback.
    const p = model!.prompts;
    expect(p.search[1]).toBe(p.search[0]);
    expect(p["init-plan"][1]).toBe(p["init-plan"][0]);
    expect(p["init-plan"][2]).toBe(p["init-plan"][0]);
    expect(p.write[1]).toBe(p.write[0]);
    expect(p.write[2]).toBe(p.write[0]);
    expect(p["extend-plan"][1]).toBe(p["extend-plan"][0]);
    // The run is the one of the first test, plus the six retries.
    expect(written(events)).toEqual(["1", "2", "3", "1.1", "1.2"]);
    expect(result.report!.checks.citations.dropped).toBe(0);
  });

  it("ends the deepening when the extend budget of 5 is spent — by failures or by expansions", async () => {
    const bad = tagged("x", JSON.stringify({ name: "extend-plan", position: "section-9", subsections: [] }));
    const failing = await runNative({ first: { "extend-plan": Array(8).fill(bad) } });
    // Entering spends one, each failure one more: five answers, then the deepening ends.
    expect(model!.prompts["extend-plan"]).toHaveLength(5);
    expect(of(failing.events, "format-error")).toHaveLength(5);
    expect(of(failing.events, "decision").at(-1)!.reason).toBe("extend budget spent (5)");
    expect(written(failing.events)).toEqual(["1", "2", "3"]);
    await cleanup();
    await model!.server.close();

    const greedy = await runNative({ expansions: 10 });
    expect(of(greedy.events, "trajectory-step").filter((s) => s.action === "expand")).toHaveLength(5);
    expect(model!.prompts["extend-plan"]).toHaveLength(5);
    expect(of(greedy.events, "decision").at(-1)!.reason).toBe("extend budget spent (5)");
  });

  it("estimates at most 5 expansions, the extend budget", async () => {
    model = await startNativeModel();
    const { dossier, docs } = nativeDossier(model);
    const estimate = (protocol: string) =>
      dossier.estimate(question, {
        strategy: "warp",
        strategyOptions: { protocol },
        docs,
        sources: "local-only",
      });
    // json: 12 expansions, as many sections as 140 steps allow (63): 64 searches, 1 outline, 63 writes, 12 decisions.
    expect(estimate("json").llmCalls).toEqual([4 + 1 + 3 + 1, 64 + 1 + 63 + 12]);
    // native: 5 expansions of 2-7 subsections: 3-47 sections.
    expect(estimate("native").llmCalls).toEqual([4 + 1 + 3 + 1, 48 + 1 + 47 + 5]);
    expect(model.server.requests).toHaveLength(0);
  });

  it("sends the user's temperature and top-p instead of the paper's", async () => {
    const { result, bodies } = await runNative({ expansions: 0 }, { temperature: 0.2, topP: 0.5 });
    expect(result.status).toBe("completed");
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) expect(body).toMatchObject({ temperature: 0.2, top_p: 0.5, max_tokens: 2048 });
    expect(userMessage(model!.server.requests[0]!)).toContain(
      "\n** Analyst's Instruction **\nYou need to update outline\n",
    );
  });
});

describe("warp native protocol: no research, no completed run", () => {
  const nop = tagged("I can answer from what I know.", JSON.stringify({ name: "nop" }));

  it("a nop in place of the first search is asked once more; insisting fails the run with NO_RESEARCH", async () => {
    const { result, events } = await runNative({ first: { search: [nop, nop] } });
    const searches = model!.prompts.search;
    expect(searches).toHaveLength(2);
    expect(searches[0]).not.toContain(NO_CALL_YET);
    expect(searches[1]).toBe(`${searches[0]}\n\n${NO_CALL_YET}`);
    expect(of(events, "warning").map((w) => w.code)).toEqual(["NO_CALL_YET"]);
    expect(of(events, "tool-start")).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringMatching(
        /answered nop before its first tool call, and again when asked once more/,
      ),
    });
  });

  it("a section written in place of the first search is asked once more; a search then goes on as usual", async () => {
    const prose = tagged(
      "I know this.",
      "Heat pumps keep working in cold climates, as is widely known by now.",
    );
    const { result, events } = await runNative({ first: { search: [prose] } });
    expect(result.status).toBe("completed");
    const searches = model!.prompts.search;
    expect(searches[1]).toContain(NO_CALL_YET);
    // Once the run has searched, no prompt carries the line again.
    for (const p of searches.slice(2)) expect(p).not.toContain(NO_CALL_YET);
    expect(of(events, "warning").map((w) => w.code)).toEqual(["NO_CALL_YET"]);
    expect(written(events)).toEqual(["1", "2", "3", "1.1", "1.2"]);
  });

  it("after the first tool call a nop in the search state is only a format error, sampled again", async () => {
    // The survey's search is the only one before research: it gets a good answer first.
    const good = tagged("Survey.", JSON.stringify({ name: "search", keywords: ["heat pump"] }));
    const { result, events } = await runNative({ expansions: 0, first: { search: [good, nop] } });
    expect(result.status).toBe("completed");
    expect(of(events, "warning")).toEqual([]);
    expect(of(events, "format-error").map((e) => e.error)).toEqual(["the action name must be one of search"]);
    expect(model!.prompts.search[2]).toBe(model!.prompts.search[1]);
  });

  it("a step cap spent before any section is written fails the run with NO_RESEARCH, not an empty report", async () => {
    const garbage = "<thought> hmm </thought>";
    const { result, events } = await runNative(
      { first: { search: [garbage, garbage, garbage] } },
      { maxSteps: 3 },
    );
    // The engine still searched the question for the survey, then the cap stopped the run.
    expect(of(events, "tool-start").length).toBeGreaterThan(0);
    expect(written(events)).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({
      code: "NO_RESEARCH",
      message: expect.stringMatching(/no report was written from the \d+ evidence item\(s\) gathered/),
    });
  });
});
