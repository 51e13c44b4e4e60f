/**
 * Protocol tests of the mams strategy, run through `Dossier.research` with a strict scripted
 * model and a loopback search server: the memory never loses a fact across chunks, a report
 * update replaces the report (corrections are kept, not appended), at most 5 calls run per
 * turn and at most 10 turns, the spent-allowance prompt comes exactly at the limit, and the
 * state and report agents of one chunk run at the same time.
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedCall, ScriptReply, ScriptStep } from "../../../test/scripted/scripted-model.ts";
import { pageText, type SmtlKit, shownIds, startSmtlKit } from "../../../test/smtl/kit.ts";
import { citedNumbers } from "../../core/citations.ts";
import type { DossierEvent, EventOf } from "../../core/events.ts";
import { NO_CALL_YET } from "../../kit/research-done.ts";
import { estimateTokens } from "../../llm/token-estimate.ts";
import { EXHAUSTED_LINE, MAMS_MARKERS, REWRITE_LINE } from "./prompts.ts";
import { planAsList } from "./protocol.ts";

let kit: SmtlKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const QUESTION = "When did the stations of the northern line open, and who designed them?";

type Kind = keyof typeof MAMS_MARKERS;
const on = (kind: Kind, reply: ScriptReply | ((call: ScriptedCall) => ScriptReply | Promise<ScriptReply>)) =>
  ({ match: (prompt: string) => prompt.includes(MAMS_MARKERS[kind]), reply }) as ScriptStep;
const kindOf = (call: ScriptedCall): Kind | "other" =>
  (Object.keys(MAMS_MARKERS) as Kind[]).find((k) => call.system.includes(MAMS_MARKERS[k])) ?? "other";

const searches = (...queries: string[]) => queries.map((query) => ({ tool: "web_search", query }));
const turn = (plan: string, calls: object[]) => on("search", { json: { plan, calls } });
const finish = on("search", { json: { plan: "- [x] every step done", calls: [] } });

/** The text between `<tag>` and `</tag>` in a prompt. */
const block = (prompt: string, tag: string) =>
  new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(prompt)?.[1] ?? "";
/** Evidence ids of the fragment a call was shown. */
const fragmentIds = (call: ScriptedCall) => shownIds(block(call.lastUser, "fragment"));
/** The facts of the memory a call was shown, without their numbers. */
const factsOf = (call: ScriptedCall) => {
  const memory = block(call.lastUser, "memory");
  return memory === "(empty)" ? [] : memory.split("\n").map((line) => line.replace(/^F\d+\. /, ""));
};
/** A state agent that rewrites the memory as it was (nothing new in the fragment). */
const keep = on("state", (call) => ({ json: { memory: factsOf(call) } }));

async function research(steps: ScriptStep[], strategyOptions: Record<string, unknown> = {}, budget = {}) {
  kit = await startSmtlKit(steps);
  const events: DossierEvent[] = [];
  const result = await kit.dossier.research(QUESTION, {
    strategy: "mams",
    strategyOptions,
    budget,
    onEvent: (e) => events.push(e),
  }).done;
  const calls = kit.model.calls;
  return { result, events, calls, kinds: calls.map(kindOf) };
}

const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

/** Every number cited in the body resolves to a reference, and no citation was dropped. */
function expectCitationsResolve(
  report: NonNullable<Awaited<ReturnType<typeof research>>["result"]["report"]>,
) {
  const numbers = citedNumbers(report.body);
  expect(numbers.length).toBeGreaterThan(0);
  expect(Math.max(...numbers)).toBe(report.references.length);
  expect(report.markdown).toMatch(/\n## References\n/);
}

describe("mams: chunked state and report updates", () => {
  it("each chunk's rewrite replaces memory and plan (not appended; old facts kept, a corrected one replaced), and the report is replaced too", async () => {
    let inFlight = 0;
    let overlap = 0;
    /** A reply after a short delay, counting how many state/report replies are under way at once. */
    const slow = (make: (call: ScriptedCall) => ScriptReply) => async (call: ScriptedCall) => {
      inFlight++;
      overlap = Math.max(overlap, inFlight);
      // Wait for the other agent of the chunk (at most a second, so agents run one after the other show as 1).
      for (let waited = 0; inFlight < 2 && overlap < 2 && waited < 1000; waited += 10)
        await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 10));
      inFlight--;
      return make(call);
    };
    const { result, events, calls, kinds } = await research(
      [
        turn("- [ ] opening years\n- [ ] architect", searches("station 1", "station 4")),
        // Chunk 1: two facts, and a first report.
        on(
          "state",
          slow((call) => {
            expect(call.lastUser).toContain(REWRITE_LINE);
            const [a, b] = fragmentIds(call);
            return {
              json: {
                memory: [`Station A opened in 1901 [${a}]`, `Station B opened in 1902 [${b}]`],
                plan: "- [ ] opening years (two found)\n- [ ] architect",
              },
            };
          }),
        ),
        on(
          "report",
          slow((call) => {
            const [a] = fragmentIds(call);
            return { json: { report: `## Openings\n\nThe first station opened in 1901 [${a}].` } };
          }),
        ),
        // Chunk 2: the whole memory rewritten — F1 superseded, F2 kept (its ids left off: given
        // back from the old fact), a new fact merged in; the plan rewritten too.
        on(
          "state",
          slow((call) => {
            const [c] = fragmentIds(call);
            return {
              json: {
                memory: [
                  `Station A opened in 1904, not 1901 [${c}]`,
                  "Station B opened in 1902",
                  `Mara Vell designed the stations [${c}]`,
                ],
                plan: "- [x] opening years\n- [x] architect",
              },
            };
          }),
        ),
        on(
          "report",
          slow((call) => {
            const [c] = fragmentIds(call);
            const [a] = shownIds(block(call.lastUser, "report"));
            return {
              json: {
                report: `## Openings\n\nThe first station opened in 1904 [${c}], designed by Mara Vell [${a}, ${c}].`,
              },
            };
          }),
        ),
        finish,
      ],
      { chunkChars: 1000 },
    );
    expect(result.status).toBe("completed");
    expect(kinds).toEqual(["search", "report", "state", "report", "state", "search"]);
    const stateCalls = calls.filter((c) => kindOf(c) === "state");
    const reportCalls = calls.filter((c) => kindOf(c) === "report");

    // Chunk 2's agents read the state as chunk 1 left it: both facts, the first report.
    expect(block(stateCalls[1]!.lastUser, "memory")).toMatch(
      /^F1\. Station A opened in 1901 .*\nF2\. Station B/,
    );
    expect(block(reportCalls[1]!.lastUser, "report")).toContain("opened in 1901");
    // Fragments are disjoint windows of the observation, each at most 1000 characters.
    const fragments = calls.filter((c) => kindOf(c) === "state").map((c) => block(c.lastUser, "fragment"));
    for (const f of fragments) expect(f.length).toBeLessThanOrEqual(1000);
    const first = new Set(fragmentIds(stateCalls[0]!));
    expect(fragmentIds(stateCalls[1]!).filter((id) => first.has(id))).toEqual([]);

    // The next search reads chunk 2's rewrite as it was returned — not chunk 1's facts with it
    // appended: the superseded 1901 fact is gone, F2 kept with the ids chunk 1 gave it.
    const [b] = fragmentIds(stateCalls[0]!).slice(1);
    const memory = block(calls.at(-1)!.lastUser, "memory").split("\n");
    expect(memory).toEqual([
      expect.stringMatching(/^F1\. Station A opened in 1904, not 1901 \[E\d+\]$/),
      `F2. Station B opened in 1902 [${b}]`,
      expect.stringMatching(/^F3\. Mara Vell designed the stations \[E\d+\]$/),
    ]);
    expect(block(calls.at(-1)!.lastUser, "plan")).toBe("- [x] opening years\n- [x] architect");
    expect(block(stateCalls[1]!.lastUser, "plan")).toBe("- [ ] opening years (two found)\n- [ ] architect");
    expect(ofType(events, "decision").at(-1)!.details).toMatchObject({
      memoryRewrites: 2,
      provenanceCarried: 1,
      planUpdates: 2,
    });

    // The report is the last update, not the updates appended: the 1901 figure is gone.
    const report = result.report!;
    expect(report.body).not.toContain("1901");
    expect(report.body.match(/^## Openings$/gm)).toHaveLength(1);
    expect(report.body).toContain("opened in 1904");
    expectCitationsResolve(report);
    expect(ofType(events, "warning").map((w) => w.code)).not.toContain("REPORT_APPENDED");

    // The state and report agents of one chunk were under way at the same time.
    expect(overlap).toBe(2);
  });

  it("counts a report update that only appends, and drops citations of evidence never shown", async () => {
    const { result, events } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("state", (call) => ({ json: { memory: [`Station opened [${fragmentIds(call)[0]}]`] } })),
      on("report", (call) => ({
        json: { report: `## Openings\n\nA station opened in 1901 [${fragmentIds(call)[0]}].` },
      })),
      turn("- [x] openings\n- [ ] architect", searches("station 7")),
      keep,
      on("report", (call) => ({
        json: {
          report: `${block(call.lastUser, "report")}\n\nThe architect was Mara Vell [${fragmentIds(call)[0]}] [E999].`,
        },
      })),
      finish,
    ]);
    const warnings = ofType(events, "warning").map((w) => w.code);
    expect(warnings.filter((c) => c === "REPORT_APPENDED")).toHaveLength(1);
    const report = result.report!;
    expect(report.checks.citations.dropped).toBe(1);
    expect(report.body).not.toContain("E999");
    expectCitationsResolve(report);
  });
});

describe("mams: the state agent rewrites memory and plan (Eq. 4) within the memory's budget", () => {
  it("state updates change the plan: chunk by chunk, and the next search turn starts from the state agent's plan", async () => {
    const { result, events, calls, kinds } = await research(
      [
        turn("- [ ] opening years\n- [ ] architect", searches("station 1", "station 4")),
        on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
        on("state", (call) => ({
          json: {
            memory: [`Station A opened in 1901 [${fragmentIds(call)[0]}]`],
            plan: "- [x] opening years\n- [ ] architect\n- [ ] the flood repairs",
          },
        })),
        on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
        on("state", (call) => {
          // Chunk 2's state agent reads the plan chunk 1's update left (p_{t,1}), not the search agent's.
          expect(block(call.lastUser, "plan")).toBe(
            "- [x] opening years\n- [ ] architect\n- [ ] the flood repairs",
          );
          return {
            json: {
              memory: [...factsOf(call), `Mara Vell designed the stations [${fragmentIds(call)[0]}]`],
              plan: "- [x] opening years\n- [x] architect\n- [ ] the flood repairs",
            },
          };
        }),
        finish,
      ],
      { chunkChars: 1000 },
    );
    expect(kinds).toEqual(["search", "report", "state", "report", "state", "search"]);
    // The search agent's next turn reads p_{t+1} = p_{t,K}.
    expect(block(calls.at(-1)!.lastUser, "plan")).toBe(
      "- [x] opening years\n- [x] architect\n- [ ] the flood repairs",
    );
    // The report agent never reads the plan (Eq. 5), and may answer with the seed's 16,384 tokens.
    for (const c of calls.filter((x) => kindOf(x) === "report")) {
      expect(c.lastUser).not.toContain("<plan>");
      expect(c.options.maxOutputTokens).toBe(16_384);
    }
    const stop = ofType(events, "decision").at(-1)!;
    expect(stop.details).toMatchObject({ planUpdates: 2, chunks: 2 });
    expect(result.status).toBe("completed");
  });

  it("a rewrite over the memory's budget is a format error, re-asked once; over it again, it is cut to the budget", async () => {
    const long = (id: string, n: number) =>
      `Station ${n} opened in ${1900 + n} and was rebuilt after the flood of ${1950 + n} [${id}]`;
    let asked: ScriptedCall | undefined;
    const { result, events, calls } = await research(
      [
        turn("- [ ] openings", searches("station 1", "station 4")),
        on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
        // Chunk 1: within the budget of 40 tokens.
        on("state", (call) => {
          expect(call.lastUser).toContain("It must stay within about 40 tokens.");
          expect(call.options.maxOutputTokens).toBe(16_384);
          return { json: { memory: [`Stations opened from 1901 [${fragmentIds(call)[0]}]`] } };
        }),
        on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
        // Chunk 2: over the budget, refused with the reason; over it again, taken and cut.
        on("state", (call) => {
          asked = call;
          return {
            json: { memory: [...factsOf(call), ...fragmentIds(call).map((id, i) => long(id, i + 1))] },
          };
        }),
        on("state", (call) => {
          // The re-ask: the refusal follows the first answer in the same conversation.
          expect(call.lastUser).toMatch(/over its budget of 40: merge overlapping facts and compress/);
          const [id] = fragmentIds(asked!);
          return { json: { memory: [...factsOf(asked!), long(id!, 8), long(id!, 9)] } };
        }),
        finish,
      ],
      { chunkChars: 1000, memoryTokens: 40 },
    );
    const errors = ofType(events, "format-error").filter((e) => e.role === "state");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toMatch(/over its budget of 40/);
    expect(ofType(events, "warning").filter((w) => w.code === "MEMORY_REPAIRED")).toHaveLength(1);
    // The memory the next search reads is the rewrite's leading facts within the budget.
    const memory = block(calls.at(-1)!.lastUser, "memory");
    expect(memory).toMatch(/^F1\. Stations opened from 1901 \[E\d+\]/);
    expect(estimateTokens(memory)).toBeLessThanOrEqual(40);
    expect(ofType(events, "decision").at(-1)!.details).toMatchObject({ memoryRepairs: 1, memoryRewrites: 2 });
    expect(result.status).toBe("completed");
  });
});

describe("mams: the trajectory", () => {
  it("is replayable: each action's whole reply, the observation ids it saw, and the tool calls after it", async () => {
    const { result, events, calls } = await research(
      [
        turn("- [ ] opening years\n- [ ] architect", searches("station 1", "station 4")),
        on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
        on("state", (call) => ({
          json: {
            memory: [`Station A opened in 1901 [${fragmentIds(call)[0]}]`],
            plan: "- [x] opening years\n- [ ] architect",
          },
        })),
        on("report", (call) => ({
          json: { report: `## Openings\n\nOpened in 1901 [${fragmentIds(call)[0]}], designed by Mara Vell.` },
        })),
        on("state", (call) => ({
          json: {
            memory: [
              `Station A opened in 1904 [${fragmentIds(call)[0]}]`,
              `Mara Vell designed them [${fragmentIds(call)[0]}]`,
            ],
          },
        })),
        finish,
      ],
      { chunkChars: 1000 },
    );
    const steps = ofType(events, "trajectory-step");
    expect(steps.map((s) => s.action)).toEqual(["search", "state", "report", "state", "report", "search"]);
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6]);
    // The tool calls between the first search action and the next action are that action's, in its scope.
    const tools = ofType(events, "tool-start").filter((t) => t.seq > steps[0]!.seq && t.seq < steps[1]!.seq);
    expect(tools.map((t) => t.tool)).toEqual(["web_search", "web_search"]);
    for (const t of tools) expect(t.scope).toBe(steps[0]!.scope);
    // The observation ids: what the turn returned, read in chunks by the state agent, seen by the next search.
    const added = ofType(events, "evidence-add")
      .filter((e) => e.seq > steps[0]!.seq && e.seq < steps[1]!.seq)
      .map((e) => (e.evidence as { id: string }).id);
    const chunked = steps
      .filter((s) => s.action === "state")
      .flatMap((s) => (s.state as { evidence: string[] }).evidence);
    expect([...chunked].sort()).toEqual([...added].sort());
    expect((steps[5]!.state as { observations: string[] }).observations).toEqual(added);
    // Replaying the recorded replies rebuilds the state the last search agent read.
    let memory: string[] = [];
    let plan = (steps[0]!.answer as { plan: string }).plan;
    for (const s of steps.filter((x) => x.action === "state")) {
      const reply = s.answer as { memory: string[]; taken: string[]; plan?: string };
      memory = reply.taken;
      if (reply.plan) plan = planAsList(reply.plan);
    }
    const last = calls.at(-1)!.lastUser;
    expect(memory.map((f, i) => `F${i + 1}. ${f}`).join("\n")).toBe(block(last, "memory"));
    expect(plan).toBe(block(last, "plan"));
    const report = (steps[4]!.answer as { taken: string }).taken;
    expect(block(last, "report")).toBe(report);
    expect(result.report!.body).toContain("designed by Mara Vell");
  });
});

describe("mams: reading pages", () => {
  it("lists the pages found and not read; a read page's text is a chunk like any other, with no reader call", async () => {
    const { result, calls, kinds } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
      on("state", { json: { memory: [] } }),
      on("search", (call) => {
        const url = /^- Station 2 — (\S+)$/m.exec(call.lastUser)?.[1];
        return {
          json: { plan: "- [ ] architect", calls: [{ tool: "read_page", url, goal: "the architect" }] },
        };
      }),
      on("report", (call) => ({
        json: { report: `## Openings\n\nDesigned by Mara Vell [${fragmentIds(call).join(", ")}].` },
      })),
      on("state", { json: { memory: [] } }),
      finish,
    ]);
    const [, second, third] = calls.filter((c) => kindOf(c) === "search").map((c) => c.lastUser);
    expect(third).toContain("- Station 1 — http");
    expect(third).not.toMatch(/^- Station 2 — /m);
    expect(result.stopReason).toBe("completed");
    expect(second).toMatch(/Pages found but not read yet[^\n]*\n- Station 1 — http/);
    const lastReport = calls.filter((c) => kindOf(c) === "report")[1]!;
    expect(block(lastReport.lastUser, "fragment")).toMatch(
      /^\[E\d+\] Station 2 — \S+\/page\/2 \(from read_page /,
    );
    // The fragment is the page's own text (the seed chunks the raw observation), not a reader's digest.
    expect(block(lastReport.lastUser, "fragment")).toContain(pageText(2));
    expect(kinds).not.toContain("other");
    expect(result.report!.body).toContain("Mara Vell");
    expectCitationsResolve(result.report!);
  });
});

describe("mams: turns and the tool-call allowance", () => {
  it("runs at most 5 calls per turn and at most 10 turns; the spent-allowance prompt comes exactly after the 10th", async () => {
    let q = 0;
    const seven = () => searches(...Array.from({ length: 7 }, () => `station ${++q}`));
    const steps: ScriptStep[] = [];
    for (let t = 0; t < 10; t++) {
      steps.push(on("search", () => ({ json: { plan: `- [ ] turn ${t + 1}`, calls: seven() } })));
      steps.push(on("state", { json: { memory: [] } }));
      steps.push(
        on("report", (call) => ({
          json: { report: `## Findings\n\nStations opened [${fragmentIds(call)[0]}].` },
        })),
      );
    }
    steps.push(on("search", { json: { plan: "- [x] final plan", calls: [] } }));
    const { result, events, calls, kinds } = await research(steps);

    expect(kinds.filter((k) => k === "search")).toHaveLength(11);
    const stepEnds = ofType(events, "step-end");
    expect(stepEnds.map((e) => e.toolCalls)).toEqual(Array(10).fill(5));
    expect(kit!.queries).toHaveLength(50);
    expect(ofType(events, "warning").filter((w) => w.code === "CALLS_CAPPED")).toHaveLength(10);

    const searchPrompts = calls.filter((c) => kindOf(c) === "search").map((c) => c.lastUser);
    searchPrompts.slice(0, 10).forEach((p, i) => {
      expect(p).not.toContain(EXHAUSTED_LINE);
      expect(p).toContain(`Tool-calling turns left: ${10 - i} of 10`);
    });
    expect(searchPrompts[10]).toMatch(new RegExp(`^${EXHAUSTED_LINE}`));
    expect(searchPrompts[10]).not.toContain("<report>");
    expect(result.stopReason).toBe("iteration-cap");
    expectCitationsResolve(result.report!);
  });

  it("at the tool-call budget the allowance is spent at once: the next prompt says so and the report is still written", async () => {
    const { result, calls, kinds } = await research(
      [
        turn("- [ ] openings", searches("station 1", "station 4", "station 7", "station 10")),
        on("state", { json: { memory: [] } }),
        on("report", (call) => ({
          json: { report: `## Openings\n\nOpened in 1901 [${fragmentIds(call)[0]}].` },
        })),
        on("search", { json: { plan: "- [x] openings", calls: searches("station 2") } }),
      ],
      {},
      { maxToolCalls: 3 },
    );
    expect(kinds).toEqual(["search", "report", "state", "search"]);
    expect(kit!.queries).toHaveLength(3);
    expect(calls[0]!.lastUser).toContain("this turn may run up to 3 call(s)");
    expect(calls[3]!.lastUser).toMatch(new RegExp(`^${EXHAUSTED_LINE}`));
    expect(result.stopReason).toBe("budget:toolCalls");
    expectCitationsResolve(result.report!);
  });
});

describe("mams: budgets and fallbacks", () => {
  it("stops exploring at the token budget and still writes the report from the state", async () => {
    const { result, kinds, events } = await research(
      [
        on("search", {
          json: { plan: "- [ ] openings", calls: searches("station 1") },
          usage: { input: 89_950, output: 100 },
        }),
        on("state", { json: { memory: [] }, usage: { input: 10, output: 10 } }),
        on("report", (call) => ({
          json: { report: `## Openings\n\nOpened in 1901 [${fragmentIds(call)[0]}].` },
          usage: { input: 10, output: 10 },
        })),
      ],
      {},
      { maxTokens: 100_000 },
    );
    expect(kinds).toEqual(["search", "report", "state"]);
    expect(result.status).toBe("completed");
    expect(result.stopReason).toBe("budget:tokens");
    expect(ofType(events, "decision").at(-1)?.reason).toMatch(/^budget:tokens: finishing the report/);
    expectCitationsResolve(result.report!);
  });

  it("a report agent that never answers in form keeps the report; a run without one lists its evidence", async () => {
    const { result, events } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("state", (call) => ({ json: { memory: [`Opened in 1901 [${fragmentIds(call)[0]}]`] } })),
      on("report", "no report today"),
      on("report", "still none"),
      on("report", "none"),
      finish,
    ]);
    const warnings = ofType(events, "warning").map((w) => w.code);
    expect(warnings).toContain("REPORT_FALLBACK");
    expect(warnings).toContain("EXTRACTIVE_REPORT");
    expect(result.status).toBe("completed");
    const report = result.report!;
    expect(report.notice).toMatch(/evidence gathered is listed/);
    expectCitationsResolve(report);
  });
});

describe("mams: evidence tokens in code", () => {
  it("a report agent citing [E9999] and a valid [E2] inside backticks: neither raw token survives, the valid one is numbered", async () => {
    const { result } = await research([
      turn("- [ ] openings", searches("station 1")),
      on("state", { json: { memory: [] } }),
      on("report", (call) => {
        expect(fragmentIds(call)).toContain("E2");
        return {
          json: {
            report:
              "## Openings\n\nThe line opened early `[E9999]` and the first station in 1901 `[E2]`; see `lookup [E2]`.",
          },
        };
      }),
      finish,
    ]);
    const report = result.report!;
    expect(report.markdown).not.toMatch(/E9999|\[E2\]/);
    expect(report.body).toContain("in 1901 [1]; see `lookup` [1].");
    expect(report.references[0]!.number).toBe(1);
    expect(report.evidenceByNumber[1]).toEqual(["E2"]);
    expect(report.checks.citations.byReason).toEqual({ "unknown-evidence": 1 });
  });
});

describe("mams: no research, no completed run", () => {
  it("a search agent that finishes at step 1 with no tool call is asked once more; insisting fails the run with NO_RESEARCH", async () => {
    const { result, events, calls, kinds } = await research([finish, finish]);
    expect(kinds).toEqual(["search", "search"]);
    expect(calls[0]!.lastUser).not.toContain(NO_CALL_YET);
    expect(calls[1]!.lastUser).toContain(NO_CALL_YET);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("NO_RESEARCH");
    expect(result.stopReason).toBe("error: NO_RESEARCH");
    expect(result.report).toBeNull();
    expect(kit!.queries).toEqual([]);
    expect(ofType(events, "warning").map((w) => w.code)).toContain("NO_CALL_YET");
  });

  it("a search agent that finishes at step 1 and, asked once more, searches goes on as usual", async () => {
    const { result, kinds } = await research([
      finish,
      turn("- [ ] openings", searches("station 1")),
      on("state", (call) => ({ json: { memory: [`Opened [${fragmentIds(call)[0]}]`] } })),
      on("report", (call) => ({ json: { report: `## Openings\n\nOpened [${fragmentIds(call)[0]}].` } })),
      finish,
    ]);
    expect(kinds).toEqual(["search", "search", "report", "state", "search"]);
    expect(result.status).toBe("completed");
    expectCitationsResolve(result.report!);
  });
});
