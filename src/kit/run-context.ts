/**
 * The run context every strategy receives: model access per role, budget, events, clock, ids,
 * the evidence registry, the step journal and the abort signal.
 */

import type { BudgetLedger } from "../core/budget.ts";
import type { Clock } from "../core/clock.ts";
import type { DossierEvent, EventInput } from "../core/events.ts";
import type { EvidenceRegistry } from "../core/evidence-registry.ts";
import type { IdGenerator } from "../core/ids.ts";
import type { StepJournal } from "../core/journal.ts";
import type { RunOptions } from "../core/run-options.ts";
import type { UsageTotals } from "../core/usage.ts";
import type { GenerateRequest, GenerateResult, LlmClient } from "../llm/client.ts";
import { generateStructured, type StructuredRequest, type StructuredResult } from "../llm/structured.ts";

/** What a strategy runs with. */
export interface RunContext {
  readonly runId: string;
  readonly query: string;
  readonly options: RunOptions;
  /** The run's current date (YYYY-MM-DD); all temporal reasoning uses it. */
  readonly currentDate: string;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly signal: AbortSignal;
  readonly budget: BudgetLedger;
  readonly llm: LlmClient;
  readonly evidence: EvidenceRegistry;
  readonly journal: StepJournal;
  /** Appends an event to the run's log. */
  emit(event: EventInput): DossierEvent;
  /** Usage so far. */
  usage(): UsageTotals;
  /** One model call. */
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /**
   * Runs `fn` with events tagged with `scope` (e.g. `search:T-2`), so the trace shows which
   * agent made each call.
   */
  inScope<T>(scope: string, fn: () => Promise<T>): Promise<T>;
  /** One structured model call with repair. */
  structured<T>(request: StructuredRequest<T>): Promise<StructuredResult<T>>;
}

/** Builds the convenience methods of a context from its parts. */
export function contextMethods(llm: LlmClient): Pick<RunContext, "generate" | "structured"> {
  return {
    generate: (request) => llm.generate(request),
    structured: (request) => generateStructured(llm, request),
  };
}
