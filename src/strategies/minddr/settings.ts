/**
 * The settings a minddr run works with, resolved from its options: which DeepSearch agent and
 * which report agent run, and the step cap. `protocol: "native"` means the paper's settings —
 * the appended ReAct trajectory (MindDR §4.4, §5.2: every step's thought, action and
 * observation appended to the context, trained up to 128K tokens) and the report written in one
 * pass from the task, the retrieved data and an outline (§5.3) — as the defaults; `json`
 * keeps Dossier's compact agent and the section-by-section writer. An option given explicitly
 * always wins over the protocol's default.
 */

/** How a DeepSearch agent keeps its context. */
export type DeepSearchMode = "appended" | "compact";
/** How the Report agent writes. */
export type ReportMode = "single-pass" | "sections";

/** The options the settings are resolved from (as the schema parsed them). */
export interface MinddrSettingsInput {
  protocol?: "json" | "native" | undefined;
  deepSearch?: DeepSearchMode | undefined;
  report?: ReportMode | undefined;
  maxSteps?: number | undefined;
}

/** What a run does. */
export interface MinddrSettings {
  deepSearch: DeepSearchMode;
  report: ReportMode;
  /** Model-driven steps per agent at most (after the seed step in compact mode). */
  maxSteps: number;
}

/** Model-driven steps per compact agent after its seed step, when none are given. */
export const COMPACT_MAX_STEPS = 12;
/**
 * Model-driven steps per appended agent when none are given: the longest trajectory the paper
 * trains on (its SFT trajectories run 5–30 steps, §4.4); the context window and the budget may
 * end it sooner.
 */
export const APPENDED_MAX_STEPS = 30;

/** The defaults of each protocol. */
export const PROTOCOL_DEFAULTS = {
  json: { deepSearch: "compact", report: "sections" },
  native: { deepSearch: "appended", report: "single-pass" },
} as const satisfies Record<string, { deepSearch: DeepSearchMode; report: ReportMode }>;

/** The run's settings: explicit options over the protocol's defaults (json when none is given). */
export function minddrSettings(options: MinddrSettingsInput): MinddrSettings {
  const defaults = PROTOCOL_DEFAULTS[options.protocol ?? "json"];
  const deepSearch = options.deepSearch ?? defaults.deepSearch;
  return {
    deepSearch,
    report: options.report ?? defaults.report,
    maxSteps: options.maxSteps ?? (deepSearch === "appended" ? APPENDED_MAX_STEPS : COMPACT_MAX_STEPS),
  };
}
