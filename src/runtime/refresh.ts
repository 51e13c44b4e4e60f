/**
 * Living reports: `refresh(dossier, runId)` writes a new version of a finished run's report as a
 * child run of the `refresh` strategy (its options name the run it refreshes and its version;
 * versions chain back to the original research run, and each is held by one run: see
 * `nextVersion`). Cited pages are fetched again and the searches run again; only the sections
 * whose evidence changed are rewritten, and a diff (Markdown redline and JSON) is written beside
 * the report. The refresh keeps the source filter of the run it refreshes (each part given in its
 * options replaces that part: see refresh-source-filter.ts). Bad input (an unknown run, one that
 * did not complete, options a refresh does not take, an older version of a report, a report a
 * refresh is already writing, a bad filter) is refused before any model call.
 */

import { DossierError } from "../core/errors.ts";
import type { EventOf } from "../core/events.ts";
import type { Dossier } from "./dossier.ts";
import { refreshStrategy } from "./refresh-definition.ts";
import { loadRefreshParent, REFRESH_STRATEGY, type RefreshParent } from "./refresh-parent.ts";
import { inheritedSourceFilter } from "./refresh-source-filter.ts";
import { nextVersion } from "./refresh-versions.ts";
import type { ResearchHandle, ResearchOptions, ResearchResult } from "./research-handle.ts";

/**
 * Options of a refresh: a research run's budget, formats, output and events, and a source filter
 * whose parts replace those of the refreshed run's filter (which the refresh keeps otherwise).
 */
export interface RefreshOptions
  extends Pick<
    ResearchOptions,
    | "budget"
    | "formats"
    | "out"
    | "signal"
    | "onEvent"
    | "onPrepared"
    | "currentDate"
    | "verify"
    | "runId"
    | "sourceFilter"
  > {
  /** The run's searches run again at most (0–20, default 8). */
  maxSearches?: number;
}

/** A refresh under way. */
export interface RefreshStart {
  handle: ResearchHandle;
  /** The run refreshed. */
  refreshOf: string;
  /** The version the refresh writes. */
  version: number;
}

/** A finished refresh. */
export interface RefreshResult extends ResearchResult {
  refreshOf: string;
  version: number;
  /** Titles of the sections rewritten (empty: nothing changed). */
  sectionsChanged: string[];
  /** The diff files: the Markdown redline, then the JSON. */
  diffPaths: string[];
  /** One sentence saying what changed. */
  message: string;
}

/** Parents loaded before a run, per registry (one Dossier's). */
const loadedOf = new WeakMap<object, Map<string, RefreshParent>>();

/** Registers the refresh strategy on `dossier` on first use; returns its map of loaded parents. */
function loadedFor(dossier: Pick<Dossier, "strategies" | "runs">): Map<string, RefreshParent> {
  let loaded = loadedOf.get(dossier.strategies);
  if (!loaded) {
    const parents = new Map<string, RefreshParent>();
    loaded = parents;
    loadedOf.set(dossier.strategies, parents);
    if (!dossier.strategies.has(REFRESH_STRATEGY)) {
      // A resumed refresh finds no loaded parent and reads it from the store again.
      dossier.strategies.register(
        refreshStrategy(async (id) => parents.get(id) ?? (await loadRefreshParent(dossier.runs, id))),
      );
    }
  }
  return loaded;
}

/** Registers the refresh strategy on `dossier` (so its refresh runs can be resumed). */
export function registerRefresh(dossier: Pick<Dossier, "strategies" | "runs">): void {
  loadedFor(dossier);
}

/** Starts a refresh of `runId`; rejects on bad input before any model call. */
export async function startRefresh(
  dossier: Pick<Dossier, "strategies" | "runs" | "research">,
  runId: string,
  options: RefreshOptions = {},
): Promise<RefreshStart> {
  const { maxSearches, ...rest } = options;
  const unknown = Object.keys(rest).filter(
    (k) =>
      ![
        "budget",
        "formats",
        "out",
        "signal",
        "onEvent",
        "onPrepared",
        "currentDate",
        "verify",
        "runId",
        "sourceFilter",
      ].includes(k),
  );
  if (unknown.length) throw new DossierError("INPUT_INVALID", `refresh does not take ${unknown.join(", ")}`);
  if (
    maxSearches !== undefined &&
    !(Number.isInteger(maxSearches) && maxSearches >= 0 && maxSearches <= 20)
  ) {
    throw new DossierError(
      "INPUT_INVALID",
      `maxSearches must be an integer from 0 to 20, got ${maxSearches}`,
    );
  }
  const parent = await loadRefreshParent(dossier.runs, runId);
  const sourceFilter = inheritedSourceFilter(
    parent.record.options,
    rest.sourceFilter,
    `run ${parent.record.id}`,
  );
  const { version, reportRoot } = await nextVersion(dossier.runs, parent.record);
  const loaded = loadedFor(dossier);
  loaded.set(parent.record.id, parent);
  const cited = new Set(parent.sections.flatMap((s) => s.numbers));
  let handle: ResearchHandle;
  try {
    handle = dossier.research(parent.record.query, {
      formats: (parent.record.options.formats as ResearchOptions["formats"]) ?? ["md"],
      ...rest,
      ...(sourceFilter ? { sourceFilter } : {}),
      strategy: REFRESH_STRATEGY,
      strategyOptions: {
        refreshOf: parent.record.id,
        reportRoot,
        version,
        ...(maxSearches === undefined ? {} : { maxSearches }),
        sections: parent.sections.length,
        pages: cited.size,
      },
      ...(typeof parent.record.options.language === "string"
        ? { language: parent.record.options.language }
        : {}),
    });
  } catch (error) {
    loaded.delete(parent.record.id);
    throw error;
  }
  const forget = () => loaded.delete(parent.record.id);
  void handle.done.then(forget, forget);
  return { handle, refreshOf: parent.record.id, version };
}

/** Refreshes the report of the finished run `runId` and waits for the new version. */
export async function refresh(
  dossier: Pick<Dossier, "strategies" | "runs" | "research">,
  runId: string,
  options: RefreshOptions = {},
): Promise<RefreshResult> {
  const { handle, refreshOf, version } = await startRefresh(dossier, runId, options);
  const result = await handle.done;
  const events = await dossier.runs.events(result.runId);
  const diff = events.filter((e): e is EventOf<"report-diff"> => e.type === "report-diff").at(-1);
  const sectionsChanged = diff?.sectionsChanged ?? [];
  return {
    ...result,
    refreshOf,
    version,
    sectionsChanged,
    diffPaths: diff?.paths ?? [],
    message: refreshMessage(result.status, version, sectionsChanged),
  };
}

/** What a refresh did, in one sentence. */
export function refreshMessage(status: string, version: number, sectionsChanged: readonly string[]): string {
  if (status !== "completed") return `refresh ${status}: no new version`;
  if (sectionsChanged.length === 0)
    return `version ${version}: no cited evidence changed, nothing was rewritten`;
  return `version ${version}: ${sectionsChanged.length} section(s) rewritten (${sectionsChanged.join(", ")})`;
}
