/**
 * A property of the training data over every strategy the loopback world runs (graph, minddr,
 * smtl, warp, mams, JSON protocol): a reply the strategy rejected — here, every third answer of
 * each role replaced by text that is no answer at all, which every call asking for structured
 * output refuses — is recorded on its call as a format
 * violation, and so is never taught: no `sft` conversation holds it (per call or per agent
 * trajectory), every `rl` line that holds it has `loss_mask` 0 (and its turn mask 0 in a
 * trajectory), the run's output for DPO is not it, and the steps MindDR's r_format reads count it
 * as a malformed step. (smtl's native tags and warp's native protocol have the same property
 * tested with their own scripted models: src/strategies/smtl/refusals.test.ts,
 * src/strategies/warp/native/golden-replay.test.ts, and the train CLI test.)
 */

import { afterEach, describe, expect, it } from "vitest";
import type { ChatBody, ScriptRole } from "../../test/research/model-script.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import { runOutput } from "./export/dpo.ts";
import { rlRecords } from "./export/rl.ts";
import { sftRecords } from "./export/sft.ts";
import { recordedRunFromEvents } from "./run-from-events.ts";
import { runSteps } from "./run-steps.ts";

let world: ResearchWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** What a model answers when it does not follow the protocol at all. */
const GARBAGE = "I am not able to answer in that format, sorry.";

const CASES: { strategy: string; strategyOptions: Record<string, unknown> }[] = [
  { strategy: "graph", strategyOptions: {} },
  { strategy: "minddr", strategyOptions: {} },
  { strategy: "smtl", strategyOptions: { mode: "answer", maxSteps: 4 } },
  { strategy: "warp", strategyOptions: {} },
  { strategy: "mams", strategyOptions: {} },
];

describe("rejected replies never become training signal", () => {
  for (const c of CASES) {
    it(`${c.strategy}: every rejected reply is a recorded violation, masked or left out of every export`, async () => {
      const seen = new Map<ScriptRole, number>();
      let injected = 0;
      // Every third answer of each role (the first included) is no answer at all.
      const override = (role: ScriptRole, _body: ChatBody) => {
        const n = (seen.get(role) ?? 0) + 1;
        seen.set(role, n);
        if (n % 3 !== 1) return undefined;
        injected++;
        return { kind: "text" as const, text: `${GARBAGE} (#${injected})` };
      };
      world = await startResearchWorld({ override });
      const store = openSqliteStore({ home: ":memory:" });
      try {
        const result = await world.research(
          {
            query: "Which topic saw measured growth in the 2025 survey?",
            strategy: c.strategy,
            strategyOptions: c.strategyOptions,
            currentDate: "2026-03-01",
            formats: ["md"],
            recordCalls: true,
          },
          { store },
        );
        const events = await store.events.list(result.runId);
        const run = recordedRunFromEvents({
          row: { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
          events,
          report: result.outcome?.report.markdown ?? null,
        });
        const injectedCalls = run.calls.filter((call) => call.completion.startsWith(GARBAGE));
        expect(injected).toBeGreaterThan(0);
        expect(injectedCalls.length, "the injected replies reach the recorded calls").toBe(injected);
        // A call that asked for structured output cannot take the text: the strategy refuses it.
        // (A free-text call — a section, a sub-report — takes any text: that is no format break.)
        const rejected = injectedCalls.filter((call) => call.responseSchema !== undefined);
        expect(rejected.length).toBeGreaterThan(0);
        const refused = new Set(rejected.map((call) => call.completion));
        // Recorded as violations on their calls.
        for (const call of rejected)
          expect(call.formatErrors, `${call.callId} (${call.role})`).not.toEqual([]);
        // Never taught by SFT, per call or per trajectory (neither as a completion nor as an earlier
        // assistant turn of a repair round).
        for (const unit of ["call", "trajectory"] as const) {
          const sft = sftRecords([run], { unit }).records;
          for (const r of sft) {
            expect(
              r.messages.some((m) => refused.has(m.content)),
              `sft ${unit}`,
            ).toBe(false);
          }
        }
        // Masked in RL.
        const scored = [{ run, reward: { reward: 1, components: {} } }];
        for (const r of rlRecords(scored).records)
          if (refused.has(r.completion)) expect(r.loss_mask, `rl ${r.call_id}`).toBe(0);
        for (const r of rlRecords(scored, { unit: "trajectory" }).records) {
          if (refused.has(r.completion)) expect(r.loss_mask).toBe(0);
          const assistant = r.messages.filter((m) => m.role === "assistant");
          assistant.forEach((m, i) => {
            if (refused.has(m.content)) expect(r.assistant_loss_mask![i]).toBe(0);
          });
        }
        // Not the output a DPO pair or a judge sees.
        const output = runOutput(run) ?? "";
        for (const text of refused) expect(output).not.toContain(text);
        // A step holding one is a malformed step for MindDR's r_format.
        for (const step of runSteps(run))
          if (step.calls.some((call) => refused.has(call.completion))) expect(step.formatOk).toBe(false);
      } finally {
        store.close();
      }
    }, 120_000);
  }
});
