/**
 * Atomic-skill rollouts (`dossier train rollouts <teacher-dir> --atomic <action>`; AgentCPM-Report
 * §2.3.2, Appendix A.6.1): G samples of one WARP action from each teacher state of a folder of
 * recorded warp rollouts (teacher-states.ts), written as a rollouts folder that `train reward
 * --reward warp-atomic` scores and `train export` reads, so single-step GRPO trains each action
 * against the teacher's reference.
 *
 * - Each sample is one recorded call (call-sampler.ts) with a seed of its own (`rolloutSeed` of
 *   the base seed, the state and the sample's index), decoded by the action's decoder
 *   (atomic-actions.ts): a reply that is no valid action is recorded with its format error — a
 *   sample like any other, which the atomic reward scores 0. A SEARCH's keywords are searched
 *   (`retrieve`: the documents they find, as locators), for the recall the reward computes.
 * - Each sample is a recorded run in `runs.jsonl`: the teacher's question row, `group` = the
 *   teacher state (`<teacher run>/<step>`) and the sample's index, its one call, one trajectory
 *   action (the decoded answer; its `state` is what the teacher's action saw plus `atomic`: the
 *   teacher run, step and call, the reference, and a SEARCH's retrieved documents), the evidence
 *   a WRITE was given, status `completed`, stop reason `atomic`.
 * - The folder pins what the samples depend on (`rollouts.json`): strategy warp, the group, the
 *   base seed, `strategyOptions.atomic` (the action, the teacher folder's runs and rows by
 *   SHA-256, the sampling asked for) and the policy; another setting is a CONFLICT before any
 *   model call. Resumable: the samples recorded before are skipped.
 * - Everything is checked before the first model call: the action, G, the teacher folder (warp,
 *   JSON protocol, at least one state), SEARCH's retriever, the output folder (not the teacher's).
 *   A sample whose call fails outside the model (the endpoint unreachable, a search failing) is
 *   not recorded: it is reported and taken by the next invocation.
 */

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DossierError } from "../../core/errors.ts";
import { runConcurrently } from "../../eval/concurrency.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  appendRolloutRun,
  type RolloutManifest,
  readManifest,
  readRolloutRows,
  readRolloutRuns,
  rolloutPath,
  writeRolloutSetup,
} from "../rollouts/rollout-dir.ts";
import { rolloutSeed } from "../rollouts/rollout-plan.ts";
import { manifestConflicts } from "../rollouts/run-rollouts.ts";
import { type AtomicAction, atomicAction, decodeAtomic } from "./atomic-actions.ts";
import type { AtomicSampler } from "./call-sampler.ts";
import { requireStates, stateContext, type TeacherState, teacherStates } from "./teacher-states.ts";

/** Options of {@link runAtomicRollouts}. */
export interface AtomicRolloutOptions {
  /** The teacher's rollouts folder (recorded warp rollouts). */
  teacherDir: string;
  /** The folder of the samples. */
  dir: string;
  action: string;
  /** Samples per teacher state (G). */
  group: number;
  /** The base of the samples' seeds (default 0). */
  seed?: number;
  /** Samples under way at once (default 4). */
  concurrency?: number;
  /** Only the first n teacher states. */
  limit?: number;
  /** Sampling over the teacher's (default: the teacher call's). */
  temperature?: number;
  topP?: number;
  /** The policy's `provider:model` per role, pinned in the manifest. */
  policy?: Record<string, string>;
  sample: AtomicSampler;
  /** SEARCH: the documents (locators) a sample's keywords find. Required for `search`. */
  retrieve?: (keywords: readonly string[]) => Promise<string[]>;
  signal?: AbortSignal;
  onSample?: (done: number, total: number) => void;
  now?: () => string;
}

/** How an invocation went. */
export interface AtomicRolloutResult {
  manifest: RolloutManifest;
  action: AtomicAction;
  /** Teacher states sampled. */
  states: number;
  /** Samples planned (states × G). */
  total: number;
  /** Samples recorded by this invocation, and before it. */
  recorded: number;
  before: number;
  /** Samples whose reply was no valid action (recorded, with its format error). */
  refused: number;
  /** Samples that failed outside the model (not recorded), with the error. */
  failures: { key: string; error: string }[];
  /** Teacher runs that gave no state, with the reason. */
  skippedTeachers: { runId: string; reason: string }[];
  runsFile: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The samples' keys already in the folder's runs. */
function recordedKeys(dir: string): Set<string> {
  if (!existsSync(rolloutPath(dir, "runs"))) return new Set();
  return new Set(readRolloutRuns(dir).map((r) => `${r.group?.id}#${r.group?.index}`));
}

/** The checked setting of an invocation, before any model call. */
function prepare(options: AtomicRolloutOptions) {
  const action = atomicAction(options.action);
  if (!Number.isInteger(options.group) || options.group < 1)
    throw new DossierError(
      "INPUT_INVALID",
      `the group size must be a positive integer, got ${options.group}`,
    );
  const teacherDir = resolve(options.teacherDir);
  const dir = resolve(options.dir);
  if (teacherDir === dir)
    throw new DossierError("INPUT_INVALID", "--out must be another folder than the teacher's rollouts");
  const teacher = readManifest(teacherDir);
  if (!teacher)
    throw new DossierError("NOT_FOUND", `${teacherDir} is not a rollouts folder (no rollouts.json)`);
  if (teacher.strategy !== "warp" || teacher.strategyOptions.atomic !== undefined)
    throw new DossierError(
      "INPUT_INVALID",
      `atomic rollouts sample from recorded warp rollouts; ${teacherDir} holds ${teacher.strategyOptions.atomic ? "atomic samples" : `${teacher.strategy} rollouts`}`,
    );
  if (teacher.strategyOptions.protocol === "native")
    throw new DossierError(
      "INPUT_INVALID",
      "atomic rollouts read warp's JSON protocol; the teacher's rollouts used the native protocol",
    );
  if (action === "search" && !options.retrieve)
    throw new DossierError("INPUT_INVALID", "atomic SEARCH samples need a search to run their keywords");
  const runs = readRolloutRuns(teacherDir);
  const rows = readRolloutRows(teacherDir);
  const found = teacherStates(runs, action);
  const states = requireStates(found, action, teacherDir).slice(0, options.limit);
  const manifest: RolloutManifest = {
    version: 1,
    strategy: "warp",
    group: options.group,
    seed: options.seed ?? 0,
    strategyOptions: {
      atomic: {
        action,
        teacherRunsSha256: sha256(readFileSync(rolloutPath(teacherDir, "runs"), "utf8")),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      },
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.topP === undefined ? {} : { topP: options.topP }),
    },
    ...(options.policy ? { policy: { ...options.policy } } : {}),
    research: {},
    rowsSha256: sha256(JSON.stringify(rows)),
    createdAt: options.now?.() ?? new Date().toISOString(),
  };
  const earlier = readManifest(dir);
  if (earlier) {
    const differs = manifestConflicts(earlier, manifest);
    if (differs.length)
      throw new DossierError(
        "CONFLICT",
        `${dir} holds samples made with other settings (${differs.join("; ")}); give another folder for other settings`,
      );
    manifest.createdAt = earlier.createdAt;
  }
  return { action, dir, rows, states, manifest, skippedTeachers: found.skipped };
}

/** The recorded run of one sample. */
function sampleRun(
  state: TeacherState,
  index: number,
  call: RecordedRun["calls"][number],
  decoded: ReturnType<typeof decodeAtomic>,
  retrieved: string[] | undefined,
): RecordedRun {
  const { teacher } = state;
  const passages = new Set(Array.isArray(state.seen.passages) ? state.seen.passages.map(String) : []);
  const evidence = teacher.evidence.filter((e) => passages.has(e.id));
  const sources = new Set(evidence.map((e) => e.sourceId));
  return {
    runId: `${state.key}#${index}`,
    strategy: "warp",
    row: teacher.row,
    group: { id: state.key, index },
    calls: [call],
    toolCalls: [],
    sources: teacher.sources.filter((s) => sources.has(s.id)),
    evidence,
    trajectory: [
      {
        step: state.step,
        action: decoded.ok ? decoded.action : state.action,
        state: {
          ...state.seen,
          atomic: {
            action: state.action,
            teacherRunId: teacher.runId,
            teacherStep: state.step,
            teacherCallId: state.request.callId,
            reference: state.reference,
            ...(retrieved ? { retrieved } : {}),
          },
        },
        answer: decoded.ok ? decoded.answer : null,
        toolCallIds: [],
        callIds: [call.callId],
      },
    ],
    drafts: [],
    answer: null,
    report: null,
    status: "completed",
    stopReason: "atomic",
  };
}

/** Samples every teacher state G times (see the module comment). */
export async function runAtomicRollouts(options: AtomicRolloutOptions): Promise<AtomicRolloutResult> {
  const { action, dir, rows, states, manifest, skippedTeachers } = prepare(options);
  writeRolloutSetup(dir, manifest, rows);
  const done = recordedKeys(dir);
  const planned = states.flatMap((state) =>
    Array.from({ length: options.group }, (_, index) => ({ state, index, key: `${state.key}#${index}` })),
  );
  const todo = planned.filter((p) => !done.has(p.key));
  let finished = 0;
  let refused = 0;
  const settled = await runConcurrently(
    todo,
    async ({ state, index, key }) => {
      const context = stateContext(state);
      let decoded: ReturnType<typeof decodeAtomic> | undefined;
      const call = await options.sample({
        request: state.request,
        runId: key,
        seed: rolloutSeed(manifest.seed, state.key, index),
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.topP === undefined ? {} : { topP: options.topP }),
        inspect: (reply) => {
          decoded = decodeAtomic(action, reply, context);
          return decoded.ok ? null : decoded.error;
        },
      });
      decoded ??= decodeAtomic(action, call.completion, context);
      const keywords =
        decoded.ok && decoded.action === "search" ? (decoded.answer.keywords as string[]) : null;
      const retrieved = keywords && options.retrieve ? await options.retrieve(keywords) : undefined;
      appendRolloutRun(dir, sampleRun(state, index, call, decoded, retrieved));
      if (!decoded.ok) refused++;
      options.onSample?.(++finished, todo.length);
    },
    { concurrency: options.concurrency ?? 4, ...(options.signal ? { signal: options.signal } : {}) },
  );
  const failures = settled.flatMap((s, i) =>
    s.ok ? [] : [{ key: todo[i]!.key, error: `${s.error.code}: ${s.error.message}` }],
  );
  return {
    manifest,
    action,
    states: states.length,
    total: planned.length,
    recorded: todo.length - failures.length,
    before: planned.length - todo.length,
    refused,
    failures,
    skippedTeachers,
    runsFile: rolloutPath(dir, "runs"),
  };
}
