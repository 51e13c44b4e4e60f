/**
 * A research run SIGKILLed three times and resumed to its end, for the resume test of each
 * strategy: the first attempt (`dossier research`) and two resumes (`dossier runs resume`) each
 * run in their own process, killed at the model gate after an exact number of answered model
 * calls (every one of them journaled); the last resume runs in this process to the end. Then
 * the checks every strategy's resume must pass: no answered model call was paid for again, no
 * evidence id named two passages, and a completed report whose every citation resolves to a
 * passage of a page the world served.
 */

import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { citedNumbers } from "../../src/core/citations.ts";
import type { DossierEvent } from "../../src/core/events.ts";
import { sourceKey } from "../../src/core/evidence-registry.ts";
import type { Evidence, Source } from "../../src/core/source.ts";
import { openSqliteStore } from "../../src/store/sqlite-store.ts";
import { runCliInProcess } from "../cli-io.ts";
import {
  journaledModelCalls,
  KILLED_QUESTION,
  killAfterAnswers,
  type ModelGate,
  worldEnv,
} from "./killed-run.ts";
import { pageText, type ResearchWorld, type WorldOptions } from "./world.ts";

/**
 * Tool latencies that make concurrent searches and page reads finish in another order than
 * they were started (and than a resume replays them): a search waits longer the smaller the
 * first number of its query (a query without one waits longest), a page the smaller its number.
 */
export const REORDERING_TOOLS: Pick<WorldOptions, "searchLatencyMs" | "pageLatencyMs"> = {
  searchLatencyMs: (q) => 20 + Math.max(0, 6 - Number(/\d+/.exec(q)?.[0] ?? 0)) * 40,
  pageLatencyMs: (n) => 20 + Math.max(0, 12 - n) * 10,
};

/** What {@link killThriceAndResume} leaves to check. */
export interface ThriceResumed {
  runId: string;
  /** The run's whole event log after the last resume. */
  events: DossierEvent[];
  /** Model answers let through by the gate when each attempt was killed. */
  answeredAtKills: number[];
  /** The JSON bundle of the report. */
  bundle: ReportBundle;
}

/** The parts of the JSON bundle the checks read. */
interface ReportBundle {
  report: { body: string };
  references: { number: number; sourceId: string; locator: string }[];
  evidenceByNumber: Record<string, string[]>;
  evidence: { id: string; sourceId: string; text: string }[];
}

/**
 * Researches KILLED_QUESTION with `strategy` (`args` added), killing the first attempt after
 * `kills[0]` answered model calls and the two resumes after `kills[1]` and `kills[2]` in all,
 * then resumes the run in this process to its end.
 */
export async function killThriceAndResume(
  world: ResearchWorld,
  gate: ModelGate,
  options: { strategy: string; kills: readonly [number, number, number]; args?: string[] },
): Promise<ThriceResumed> {
  const env = { DOSSIER_CONCURRENCY: "3" };
  const research = [
    "research",
    KILLED_QUESTION,
    "--strategy",
    options.strategy,
    "--format",
    "md,json",
    "--json",
    ...(options.args ?? []),
  ];
  const answeredAtKills: number[] = [];
  let runId = "";
  for (const [attempt, answers] of options.kills.entries()) {
    const argv = attempt === 0 ? research : ["runs", "resume", runId, "--json"];
    const ended = await killAfterAnswers(world, gate, argv, answers, { env });
    expect(ended, `attempt ${attempt + 1} was killed, not ended by itself`).toBeNull();
    answeredAtKills.push(gate.passed.length);
    if (attempt === 0) {
      const store = openSqliteStore({ home: world.home });
      // Awaited: a store whose operations are asynchronous fits too.
      runId = (await store.runs.list())[0]!.id;
      await store.close();
    }
  }
  const resumed = await runCliInProcess(["runs", "resume", runId, "--json"], {
    cwd: world.home,
    env: { ...worldEnv(world), ...env },
  });
  expect(resumed.stderr).toBe("");
  expect(resumed.code).toBe(0);
  const summary = JSON.parse(resumed.stdout.trim()) as {
    runId: string;
    status: string;
    reportPaths: string[];
  };
  expect(summary).toMatchObject({ runId, status: "completed" });
  const store = openSqliteStore({ home: world.home });
  const events = await store.events.list(runId);
  await store.close();
  const bundlePath = summary.reportPaths.find((p) => p.endsWith(".json"))!;
  const bundle = JSON.parse(readFileSync(bundlePath, "utf8")) as ReportBundle;
  return { runId, events, answeredAtKills, bundle };
}

/**
 * The checks: each attempt was killed where asked; the model answered `uninterrupted` calls in
 * all, as many as an uninterrupted run makes (one more would be a completed call paid again),
 * and journaled as many; no key was called live twice; the log holds one resume per kill; an
 * evidence or source id never named two different things across the attempts; the report's
 * every citation resolves to evidence of the cited source whose text is on that page.
 */
export function expectResumedWithoutRepeats(
  world: ResearchWorld,
  run: ThriceResumed,
  expected: { kills: readonly [number, number, number]; uninterrupted: number },
): void {
  expect(run.answeredAtKills).toEqual([...expected.kills]);
  const answered = Object.values(world.script.counts).reduce((a, b) => a + b, 0);
  expect(answered, "model calls answered over all attempts").toBe(expected.uninterrupted);

  const { events } = run;
  expect(events.filter((e) => e.type === "run-resume")).toHaveLength(3);
  expect(events.at(-1)).toMatchObject({ type: "run-end", status: "completed" });
  const live = events.filter(
    (e): e is Extract<DossierEvent, { type: "llm-end" }> => e.type === "llm-end" && e.ok && !e.replayed,
  );
  // One journal entry per answer; a call killed between its journal entry and its event replays.
  expect(journaledModelCalls(world), "model calls journaled").toBe(expected.uninterrupted);
  expect(live.length).toBeLessThanOrEqual(expected.uninterrupted);
  expect(new Set(live.map((e) => e.key)).size).toBe(live.length);

  const named = new Map<string, string>();
  const identity = (e: DossierEvent): [string, string] | null => {
    if (e.type === "evidence-add") {
      const x = e.evidence as Evidence;
      return [x.id, `${x.sourceId}|${x.text}`];
    }
    if (e.type === "source-add") {
      const x = e.source as Source;
      return [x.id, sourceKey(x)];
    }
    return null;
  };
  for (const e of events) {
    const pair = identity(e);
    if (!pair) continue;
    const [id, thing] = pair;
    expect(named.get(id) ?? thing, `${id} names the same thing in every attempt`).toBe(thing);
    named.set(id, thing);
  }

  const { bundle } = run;
  const numbers = citedNumbers(bundle.report.body);
  expect(numbers.length).toBeGreaterThan(0);
  const added = new Map(
    events.flatMap((e) =>
      e.type === "evidence-add" ? [[(e.evidence as Evidence).id, e.evidence as Evidence]] : [],
    ),
  );
  for (const n of numbers) {
    const reference = bundle.references.find((r) => r.number === n);
    expect(reference, `citation [${n}] has a reference`).toBeDefined();
    const ids = bundle.evidenceByNumber[String(n)] ?? [];
    expect(ids.length, `citation [${n}] names evidence`).toBeGreaterThan(0);
    const page = Number(/\/page\/(\d+)$/.exec(reference!.locator)?.[1]);
    for (const id of ids) {
      const evidence = bundle.evidence.find((e) => e.id === id);
      expect(evidence?.sourceId).toBe(reference!.sourceId);
      expect(added.get(id)?.text, `${id} was retrieved during the run`).toBe(evidence!.text);
      expect(pageText(page)).toContain(evidence!.text.replace(/…$/, ""));
    }
  }
}
