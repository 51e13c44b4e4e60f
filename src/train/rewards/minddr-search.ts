/**
 * `minddr-search`: the Search-RL reward of MindDR (§5.2), for a DeepSearch agent's trajectory
 * H = {(T_t, A_t, O_t)}_{t=1..T} (the run's steps, see run-steps.ts).
 *
 * Step-level rewards, per step t:
 *
 *     r_tool(t)   = +0.1 if c_t = 1; −0.2 if c_t = 0 and c_{t−1} = 0 (consecutive failure);
 *                   −0.1 if c_t = 0 and c_{t−1} = 1 (isolated failure)                     (Eq. 6)
 *     r_format(t) = +0.1 if the step's output format is correct, else −0.2                  (Eq. 7)
 *
 * Trajectory-level:
 *
 *     R_PRM(H) = (1/M) Σ_j ê_j,  ê_j = 1[∃ t: e_j ∈ T_t ∪ O_t]                               (Eq. 8)
 *     R_ORM(H) ∈ {0, 1}: the majority of three binary judge verdicts on the final answer
 *     R(x, H)  = λ_ORM R_ORM + λ_PRM R_PRM + (1/T) Σ_t [λ_tool r_tool(t) + λ_format r_format(t)] (Eq. 9)
 *
 * Where the paper leaves a detail open, we chose:
 * - c_t = 1 when every tool call of step t succeeded (Dossier's agents may run several per
 *   step); a step without a tool call gets r_tool(t) = 0 and still counts in T; c_{t−1} is the
 *   outcome of the same agent's last earlier step that called a tool; the first failure of an
 *   agent is isolated (−0.1). Each agent (scope) is its own sequence.
 * - a step's format is correct when none of its model calls raised a format error (a repaired
 *   answer still counts as a format error).
 * - entity matching is whole-word matching after Unicode NFKC normalisation, lower-casing and
 *   whitespace collapsing ("AI" is not found in "chair"; an edge of an entity written in a script
 *   without spaces between words, such as Chinese, needs no word boundary); T_t is the step's raw completions, O_t its tool observations and the
 *   evidence passages its tool calls retrieved. The row's entities are required.
 * - the judged response is the run's short answer, else its report; a run with neither scores
 *   R_ORM = 0 without asking the judges. Without a reference answer R_ORM is null, allowed only
 *   while λ_ORM = 0.
 * - with no step at all the step sum is 0.
 */

import { DossierError } from "../../core/errors.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { type RunStep, runSteps } from "../run-steps.ts";
import { type AnswerJudge, type BinaryVerdict, majorityVerdict } from "./answer-judge.ts";
import { INITIAL_SEARCH_LAMBDAS, type SearchBatchMetrics, type SearchLambdas } from "./minddr-lambdas.ts";

/** r_tool of a successful step. */
export const TOOL_SUCCESS = 0.1;
/** r_tool of a failure right after a failure. */
export const TOOL_CONSECUTIVE_FAILURE = -0.2;
/** r_tool of a failure after a success (or of an agent's first failure). */
export const TOOL_ISOLATED_FAILURE = -0.1;
/** r_format of a well-formed step. */
export const FORMAT_CORRECT = 0.1;
/** r_format of a malformed step. */
export const FORMAT_INCORRECT = -0.2;

/**
 * Eq. 6 over one agent's steps in order: `outcomes[t]` is c_t (true = every tool call
 * succeeded), or null for a step without a tool call (r_tool = 0).
 */
export function toolRewards(outcomes: readonly (boolean | null)[]): number[] {
  let previous: boolean | null = null;
  return outcomes.map((ok) => {
    if (ok === null) return 0;
    const r = ok ? TOOL_SUCCESS : previous === false ? TOOL_CONSECUTIVE_FAILURE : TOOL_ISOLATED_FAILURE;
    previous = ok;
    return r;
  });
}

/** Eq. 7 for one step. */
export function formatReward(formatOk: boolean): number {
  return formatOk ? FORMAT_CORRECT : FORMAT_INCORRECT;
}

/** Text as entities are matched in it. */
export function matchText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** Characters of scripts that separate words with spaces (and digits): their edges need a word boundary. */
const SPACED = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}]/u;

/** A matcher of `needle` (already {@link matchText}) as a whole word. */
function entityPattern(needle: string): RegExp {
  const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const before = SPACED.test(needle.at(0) ?? "") ? "(?<![\\p{L}\\p{N}])" : "";
  const after = SPACED.test(needle.at(-1) ?? "") ? "(?![\\p{L}\\p{N}])" : "";
  return new RegExp(`${before}${escaped}${after}`, "u");
}

/** Eq. 8: coverage of `entities` over the steps' texts, and the first step (index) each appears in. */
export function entityCoverage(
  entities: readonly string[],
  stepTexts: readonly (readonly string[])[],
): { coverage: number; firstStep: (number | null)[] } {
  if (entities.length === 0)
    throw new DossierError("INPUT_INVALID", "entity coverage needs at least one entity");
  const texts = stepTexts.map((texts) => texts.map(matchText));
  const firstStep = entities.map((entity) => {
    const found = entityPattern(matchText(entity));
    const t = texts.findIndex((step) => step.some((text) => found.test(text)));
    return t < 0 ? null : t;
  });
  return { coverage: firstStep.filter((t) => t !== null).length / entities.length, firstStep };
}

/** The trajectory-level parts Eq. 9 combines. */
export interface SearchParts {
  orm: number | null;
  prm: number;
  /** r_tool(t) for t = 1..T. */
  tool: readonly number[];
  /** r_format(t) for t = 1..T. */
  format: readonly number[];
}

/** Eq. 9. R_ORM may be null only while λ_ORM = 0. */
export function searchComposite(parts: SearchParts, lambdas: SearchLambdas): number {
  if (parts.tool.length !== parts.format.length)
    throw new DossierError("INTERNAL", "r_tool and r_format must cover the same steps");
  if (parts.orm === null && lambdas.orm !== 0)
    throw new DossierError("INPUT_INVALID", "λ_ORM > 0 needs R_ORM (a reference answer)");
  const T = parts.tool.length;
  let steps = 0;
  for (let t = 0; t < T; t++) steps += lambdas.tool * parts.tool[t]! + lambdas.format * parts.format[t]!;
  return lambdas.orm * (parts.orm ?? 0) + lambdas.prm * parts.prm + (T === 0 ? 0 : steps / T);
}

/** Dependencies of {@link minddrSearchReward}. */
export interface MinddrSearchDeps {
  /** The ORM judges (an odd number; the paper uses three independent models). */
  judges: readonly AnswerJudge[];
}

/** Options of {@link minddrSearchReward}. */
export interface MinddrSearchOptions {
  /** The coefficients in force (the λ schedule's current state). Default (0.6, 0.3, 0.1, 0.0). */
  lambdas?: SearchLambdas;
  /** Keeps only these agents' steps (e.g. `(s) => s.startsWith("search:")`). Default every step. */
  scope?: (scope: string) => boolean;
}

/** One step's rewards. */
export interface SearchStepReward {
  scope: string;
  step: number;
  /** c_t, or null when the step called no tool. */
  toolOk: boolean | null;
  tool: number;
  formatOk: boolean;
  format: number;
}

/** The reward of one trajectory with every component. */
export interface MinddrSearchReward {
  /** R(x, H), Eq. 9. */
  reward: number;
  components: {
    /** (1/T) Σ r_tool(t). */
    tool: number;
    /** (1/T) Σ r_format(t). */
    format: number;
    prm: number;
    orm: number | null;
  };
  lambdas: SearchLambdas;
  steps: SearchStepReward[];
  /** Each entity and the index in `steps` of the first step it appeared in (null: never). */
  entities: { entity: string; step: number | null }[];
  /** The judges' verdicts (empty when no judge was asked). */
  votes: BinaryVerdict[];
  /** The figures the λ schedule watches, for this trajectory. */
  figures: { toolSuccess: number | null; formatCompliance: number | null };
}

function agentToolRewards(steps: readonly RunStep[]): number[] {
  const out = new Array<number>(steps.length);
  const byScope = new Map<string, number[]>();
  steps.forEach((s, i) => {
    const indices = byScope.get(s.scope);
    if (indices) indices.push(i);
    else byScope.set(s.scope, [i]);
  });
  for (const indices of byScope.values()) {
    const rewards = toolRewards(indices.map((i) => stepToolOk(steps[i]!)));
    indices.forEach((i, k) => {
      out[i] = rewards[k]!;
    });
  }
  return out;
}

function stepToolOk(step: RunStep): boolean | null {
  return step.toolCalls.length === 0 ? null : step.toolCalls.every((t) => t.ok);
}

function share(flags: readonly boolean[]): number | null {
  return flags.length === 0 ? null : flags.filter(Boolean).length / flags.length;
}

/** The `minddr-search` reward of a run (see the module comment). */
export async function minddrSearchReward(
  run: RecordedRun,
  deps: MinddrSearchDeps,
  options: MinddrSearchOptions = {},
): Promise<MinddrSearchReward> {
  const lambdas = options.lambdas ?? INITIAL_SEARCH_LAMBDAS;
  const entities = run.row.entities ?? [];
  if (entities.length === 0)
    throw new DossierError(
      "INPUT_INVALID",
      `row ${run.row.id}: minddr-search needs the row's entities (Eq. 8)`,
    );
  const steps = runSteps(run, options.scope ? { scope: options.scope } : {});
  const tool = agentToolRewards(steps);
  const format = steps.map((s) => formatReward(s.formatOk));
  const { coverage, firstStep } = entityCoverage(
    entities,
    steps.map((s) => [...s.reasoning, ...s.observations]),
  );

  let orm: number | null = null;
  let votes: BinaryVerdict[] = [];
  const reference = run.row.answer;
  if (reference !== undefined) {
    const response = run.answer ?? run.report ?? "";
    if (response.trim() === "") orm = 0;
    else {
      const verdict = await majorityVerdict(deps.judges, { question: run.row.prompt, reference, response });
      orm = verdict.correct ? 1 : 0;
      votes = verdict.votes;
    }
  }
  const reward = searchComposite({ orm, prm: coverage, tool, format }, lambdas);
  const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const okFlags = steps.map(stepToolOk).filter((x): x is boolean => x !== null);
  return {
    reward,
    components: { tool: mean(tool), format: mean(format), prm: coverage, orm },
    lambdas: { ...lambdas },
    steps: steps.map((s, i) => ({
      scope: s.scope,
      step: s.step,
      toolOk: stepToolOk(s),
      tool: tool[i]!,
      formatOk: s.formatOk,
      format: format[i]!,
    })),
    entities: entities.map((entity, j) => ({ entity, step: firstStep[j]! })),
    votes,
    figures: { toolSuccess: share(okFlags), formatCompliance: share(steps.map((s) => s.formatOk)) },
  };
}

/**
 * A batch's figures for the λ schedule: the mean over trajectories of each one's tool success
 * share, format compliance share, R_PRM and R_ORM (a trajectory without the figure is left out;
 * null when none has it).
 */
export function searchBatchMetrics(rewards: readonly MinddrSearchReward[]): SearchBatchMetrics {
  const mean = (xs: (number | null)[]) => {
    const known = xs.filter((x): x is number => x !== null);
    return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
  };
  return {
    toolSuccess: mean(rewards.map((r) => r.figures.toolSuccess)),
    formatCompliance: mean(rewards.map((r) => r.figures.formatCompliance)),
    prmCoverage: mean(rewards.map((r) => r.components.prm)),
    ormAccuracy: mean(rewards.map((r) => r.components.orm)),
  };
}
