/**
 * Test helpers of smtl's protocol tests (not shipped): a run context whose model answers from a
 * script — plain calls with text replies judged by the codec's inspector, structured calls with
 * values judged by the codec's accept check and refused as the real client refuses them — and
 * research tools that answer every search with two pages and read any page. Nothing leaves the
 * process: the state and the loop run as in a run, the model and the tools are fakes of the
 * context's own interfaces.
 */

import { BudgetLedger } from "../../core/budget.ts";
import { systemClock } from "../../core/clock.ts";
import { DossierError } from "../../core/errors.ts";
import type { EventInput } from "../../core/events.ts";
import { EvidenceRegistry } from "../../core/evidence-registry.ts";
import { createSequentialIds } from "../../core/ids.ts";
import { runOptionsSchema } from "../../core/run-options.ts";
import { type ResearchToolName, type ResearchTools, unavailable } from "../../kit/research-tools.ts";
import type { RunContext } from "../../kit/run-context.ts";
import type { GenerateRequest, GenerateResult } from "../../llm/client.ts";
import type { StructuredRequest, StructuredResult } from "../../llm/structured.ts";
import type { SmtlOptions } from "./state.ts";

/** One scripted answer: a text (plain call) or a value (structured call), or a failed call. */
export type ScriptedAnswer = string | { value: unknown } | { error: unknown };

/** A fake run context and what it saw. */
export interface FakeRun {
  ctx: RunContext;
  events: EventInput[];
  /** The plain calls made, in order (tag protocol). */
  calls: GenerateRequest[];
  /** The structured calls made, in order (JSON protocol). */
  structured: StructuredRequest<unknown>[];
  /** The answers not yet given. */
  script: ScriptedAnswer[];
  /** The events of one type. */
  of<T extends EventInput["type"]>(type: T): Extract<EventInput, { type: T }>[];
}

/** Options of {@link fakeRun}. */
export interface FakeRunOptions {
  query?: string;
  /** The tool-call budget of the run. */
  maxToolCalls?: number;
}

/** A context whose model gives `script`'s answers in order. */
export function fakeRun(script: ScriptedAnswer[], options: FakeRunOptions = {}): FakeRun {
  const ids = createSequentialIds();
  const events: EventInput[] = [];
  const run: FakeRun = {
    ctx: undefined as never,
    events,
    calls: [],
    structured: [],
    script: [...script],
    of: (type) => events.filter((e) => e.type === type) as never,
  };
  const next = (): ScriptedAnswer => {
    const answer = run.script.shift();
    if (answer === undefined) throw new Error("the script has no answer left");
    if (typeof answer === "object" && "error" in answer) throw answer.error;
    return answer;
  };
  run.ctx = {
    runId: "run-smtl",
    query: options.query ?? "Which architect designed station 3?",
    currentDate: "2026-03-01",
    options: runOptionsSchema.parse({ strategy: "smtl" }),
    clock: systemClock,
    ids,
    signal: new AbortController().signal,
    budget: new BudgetLedger({
      clock: systemClock,
      limits: options.maxToolCalls === undefined ? {} : { maxToolCalls: options.maxToolCalls },
    }),
    evidence: new EvidenceRegistry(ids),
    emit: (event: EventInput) => {
      events.push(event);
      return event as never;
    },
    llm: {
      resolve: () => {
        throw new Error("no model table in this test");
      },
      call: async (request: GenerateRequest, inspect?: (text: string) => string | null) => {
        run.calls.push(request);
        const text = next();
        if (typeof text !== "string") throw new Error("a plain call got a scripted value");
        const formatError = inspect?.(text) ?? null;
        return {
          result: { text, callId: `L${run.calls.length}`, model: "m" } as GenerateResult,
          formatError,
        };
      },
    },
    structured: async <T>(request: StructuredRequest<T>): Promise<StructuredResult<T>> => {
      run.structured.push(request as StructuredRequest<unknown>);
      const answer = next();
      if (typeof answer === "string") throw new Error("a structured call got a scripted text");
      const value = request.schema.parse((answer as { value: unknown }).value);
      const refusal = request.accept?.(value) ?? null;
      if (refusal !== null)
        throw new DossierError("STRUCTURED_OUTPUT_FAILED", `no valid answer: ${refusal}`, {
          details: { role: request.role, calls: 1, errors: [refusal] },
        });
      return { value, raw: JSON.stringify(value), calls: 1, formatErrors: 0, repaired: false };
    },
  } as unknown as RunContext;
  return run;
}

const ok = <T>(value: T) => ({
  ok: true as const,
  value,
  cached: false,
  provider: "fake",
  callId: "T",
  latencyMs: 0,
});

/** Tools that find two pages for any query and read any page. */
export function fakeTools(
  available: readonly ResearchToolName[] = ["web_search", "read_page"],
): ResearchTools {
  const slug = (q: string) => q.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return {
    available,
    webSearch: async (query) =>
      ok(
        [1, 2].map((n) => ({
          title: `${query} ${n}`,
          url: `https://x.example/${slug(query)}/${n}`,
          snippet: `About ${query}, part ${n}.`,
        })),
      ),
    readPage: async (url, goal) =>
      ok({
        url,
        finalUrl: url,
        title: `Page ${url}`,
        rationale: `read for ${goal}`,
        evidence: [`${goal}: Mara Vell.`],
        summary: "Mara Vell.",
      }),
    localSearch: async () => unavailable("local_search"),
    academicSearch: async () => unavailable("academic_search"),
  };
}

/** Options of a run with the fake tools. */
export function smtlOptions(options: Partial<SmtlOptions> = {}): SmtlOptions {
  return { tools: fakeTools(), language: "en", ...options };
}
