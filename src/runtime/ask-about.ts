/**
 * Follow-up questions: `askAbout(dossier, question, { about: runId })` answers a question about a
 * finished run as a child run of the `follow-up` strategy (its options name the parent: the
 * audit trail links them). The run's evidence is tried first and the answer cites the parent
 * report's reference numbers; only when that evidence does not suffice does the child search
 * (a small budget of queries), and the new sources become the child's evidence; it searches
 * within the run's source filter (each part given replaces that part). Bad input (an unknown
 * run, one that did not complete, a bad filter) is refused before any model call.
 */

import { DossierError } from "../core/errors.ts";
import type { DossierEvent, EventOf } from "../core/events.ts";
import { FOLLOW_UP_STRATEGY, type FollowUpSearch, followUpStrategy } from "./ask-about-definition.ts";
import { loadParentEvidence, type ParentEvidence } from "./ask-about-parent.ts";
import { type AskOptions, type AskResult, askResultOf } from "./ask-run.ts";
import type { Dossier } from "./dossier.ts";
import { inheritedSourceFilter } from "./refresh-source-filter.ts";

export type { FollowUpSearch } from "./ask-about-definition.ts";

/** Options of a follow-up question. */
export interface AskAboutOptions extends Omit<AskOptions, "about"> {
  /** Id (or unique prefix) of the finished run the question is about. */
  about: string;
}

/** The answer to a follow-up question. */
export interface FollowUpResult extends AskResult {
  /** The id of the run the question is about. */
  about: string;
  /** True when the run's own evidence answered it (no search was made). */
  fromRunEvidence: boolean;
  /** The searches the follow-up made, from its event log. */
  searches: FollowUpSearch[];
}

/** Parent evidence handed to the strategy, per registry (one Dossier's). */
const parentsOf = new WeakMap<object, Map<string, ParentEvidence>>();

/** The follow-up strategy's parent map on `dossier`, registering the strategy on first use. */
function parentsFor(dossier: Pick<Dossier, "strategies" | "runs">): Map<string, ParentEvidence> {
  let parents = parentsOf.get(dossier.strategies);
  if (!parents) {
    const loaded = new Map<string, ParentEvidence>();
    parents = loaded;
    parentsOf.set(dossier.strategies, loaded);
    if (!dossier.strategies.has(FOLLOW_UP_STRATEGY)) {
      // A resumed follow-up finds no loaded parent and reads it from the store again.
      dossier.strategies.register(
        followUpStrategy(async (id) => loaded.get(id) ?? (await loadParentEvidence(dossier.runs, id))),
      );
    }
  }
  return parents;
}

/** Registers the follow-up strategy on `dossier` (so its follow-up runs can be resumed). */
export function registerFollowUp(dossier: Pick<Dossier, "strategies" | "runs">): void {
  parentsFor(dossier);
}

/** Answers a follow-up question about a finished run. */
export async function askAbout(
  dossier: Pick<Dossier, "strategies" | "runs" | "research">,
  question: string,
  options: AskAboutOptions,
): Promise<FollowUpResult> {
  const { about, maxSearches, onEvent, steps, strategy, strategyOptions, ...rest } = options;
  const deepSearch = { steps, strategy, strategyOptions };
  for (const [name, value] of Object.entries(deepSearch)) {
    if (value !== undefined) throw new DossierError("INPUT_INVALID", `${name} cannot be given with about`);
  }
  if (!question.trim()) throw new DossierError("INPUT_INVALID", "the follow-up question is empty");
  if (maxSearches !== undefined && !(Number.isInteger(maxSearches) && maxSearches >= 0 && maxSearches <= 5)) {
    throw new DossierError("INPUT_INVALID", `maxSearches must be an integer from 0 to 5, got ${maxSearches}`);
  }
  const parent = await loadParentEvidence(dossier.runs, about);
  const sourceFilter = inheritedSourceFilter(
    parent.record.options,
    rest.sourceFilter,
    `run ${parent.record.id}`,
  );
  const parents = parentsFor(dossier);
  parents.set(parent.record.id, parent);
  let ready: EventOf<"answer-ready"> | undefined;
  try {
    const handle = dossier.research(question, {
      ...rest,
      ...(sourceFilter ? { sourceFilter } : {}),
      strategy: FOLLOW_UP_STRATEGY,
      strategyOptions: { about: parent.record.id, ...(maxSearches === undefined ? {} : { maxSearches }) },
      onEvent: (event) => {
        if (event.type === "answer-ready") ready = event;
        onEvent?.(event);
      },
    });
    const result = await handle.done;
    const events = await dossier.runs.events(result.runId);
    const searches = searchesOf(events);
    return {
      ...askResultOf(result, ready),
      about: parent.record.id,
      fromRunEvidence: result.status === "completed" && searches.length === 0 && !!ready?.answer,
      searches,
    };
  } finally {
    parents.delete(parent.record.id);
  }
}

/** The web searches of a run's events: each tool-start of a search, with its tool-end's outcome. */
function searchesOf(events: readonly DossierEvent[]): FollowUpSearch[] {
  const ends = new Map<string, EventOf<"tool-end">>();
  for (const e of events) if (e.type === "tool-end") ends.set(e.callId, e);
  return events.flatMap((e) => {
    if (e.type !== "tool-start" || !/search/.test(e.tool)) return [];
    const args = (e.args ?? {}) as { query?: unknown };
    const end = ends.get(e.callId);
    return [
      {
        query: typeof args.query === "string" ? args.query : "",
        ok: end?.ok ?? false,
        results: end?.resultCount ?? 0,
      },
    ];
  });
}
