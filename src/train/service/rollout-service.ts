/**
 * The rollout service behind `dossier train serve`: a trainer posts a batch of question rows
 * with the policy endpoint, the group size, the reward and the policy version; the service
 * checks all of it before anything exists (a bad request creates nothing and calls no model),
 * answers with the batch's id, runs G recorded rollouts of every row in the policy's Dossier —
 * in this process, or on `dossier worker` processes through the run queue — scores each group
 * as soon as its rollouts have ended, and keeps the batch's progress events and results.
 *
 * Rollouts of all batches share the service's slots (`concurrency`). Policy versions only move
 * forward (policy-versions.ts): a batch whose version is older than the latest requested is
 * off-policy in its results; with `rejectStale` (the request's, or the service's) a request of
 * a stale version is refused (409) and a running batch stops starting rollouts once a newer
 * version is requested.
 *
 * Batches live in the service's memory (the runs, their events and journals are in the store):
 * the last `keepBatches` ended ones are kept, and a restarted service knows none of the batches
 * of the one before (their runs stay in the store), only the latest policy version.
 */

import PQueue from "p-queue";
import { DossierError } from "../../core/errors.ts";
import type { QueuedResearchOptions } from "../../queue/queued-research.ts";
import type { RunQueue } from "../../queue/run-queue.ts";
import { servicesReady } from "../../queue/services-ready.ts";
import type { Dossier } from "../../runtime/dossier.ts";
import { researchRequestSchema } from "../../runtime/research-request.ts";
import { createRunId } from "../../runtime/run-id.ts";
import { parseInput } from "../parse-input.ts";
import type { RecordedRun } from "../recorded-run.ts";
import { searchLambdas } from "../rewards/minddr-lambdas.ts";
import { planRollouts } from "../rollouts/rollout-plan.ts";
import { checkRunsForReward, type RewardJudges } from "../score/score-runs.ts";
import type { BatchEventLog } from "./batch-events.ts";
import { batchEventLog } from "./batch-events.ts";
import { type BatchRun, startBatch } from "./batch-runner.ts";
import type { BatchState, GroupState, RolloutState } from "./batch-state.ts";
import { type BatchResults, type BatchView, batchResults, batchView } from "./batch-view.ts";
import { serviceJudges } from "./judges.ts";
import { policyKey, savePolicyRecord } from "./policy.ts";
import { type PolicyDossiers, policyDossiers } from "./policy-dossiers.ts";
import { loadPolicyVersions, type PolicyVersions } from "./policy-versions.ts";
import { checkPreparation } from "./prepare-check.ts";
import { type RolloutRequest, rolloutRequestSchema } from "./request.ts";
import { embeddedExecutor, queueExecutor, type RolloutExecutor } from "./rollout-executor.ts";
import { rolloutResearchOptions } from "./rollout-options.ts";
import { rolloutTokens } from "./rollout-tokens.ts";

/** Default rollouts under way at once. */
export const DEFAULT_ROLLOUT_CONCURRENCY = 8;
/** Default ended batches kept. */
export const DEFAULT_KEEP_BATCHES = 256;

/** Options of {@link createRolloutService}. */
export interface RolloutServiceOptions {
  /** The service's Dossier: the store, the strategies, the judge model of the rewards. */
  dossier: Dossier;
  /** Where policy key variables are read, and search endpoint overrides (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The working directory a run's relative paths resolve against (default `process.cwd()`). */
  cwd?: string;
  /** The policies' Dossiers (default: made over `dossier`'s store with `env`). */
  policies?: PolicyDossiers;
  /** The run queue: rollouts are enqueued for `dossier worker` processes (default: run here). */
  queue?: RunQueue | null;
  /** How queued runs are followed (polling periods). */
  queueOptions?: QueuedResearchOptions;
  /** Rollouts under way at once, all batches together (default 8). */
  concurrency?: number;
  /** Refuse stale work for every request (default false: only requests that ask). */
  rejectStale?: boolean;
  /** The rewards' judges, made fresh for each batch (default: behind the configured judge model). */
  judges?: () => RewardJudges;
  /** Takings-up of a rollout that failed outside the agent (default 2). */
  infraRetries?: number;
  /** Wait before the first taking-up, doubled each time (ms, default 2000). */
  retryDelayMs?: number;
  /** Ended batches kept (default 256). */
  keepBatches?: number;
}

/** The rollout service. */
export interface RolloutService {
  readonly mode: "embedded" | "queue";
  /** Checks a request, starts its batch, and returns the batch's status. */
  create(body: unknown): Promise<BatchView>;
  view(id: string): BatchView;
  /** Its results so far (with `tokens: true`, each rollout's token records, read from the store). */
  results(id: string): Promise<BatchResults>;
  events(id: string): BatchEventLog;
  /** Cancels a batch under way (its runs stay resumable); its status. */
  cancel(id: string, reason?: string): BatchView;
  /** Resolves once the store (and the queue) answer within `timeoutMs`; STORE_ERROR otherwise. */
  ready(timeoutMs: number): Promise<void>;
  /** Cancels every batch under way and waits for them to end; closes the policies' Dossiers. */
  close(reason?: string): Promise<void>;
}

interface Kept {
  state: BatchState;
  run: BatchRun;
}

/** The rows as the runs a reward is checked against before any runs (each an empty rollout of its row). */
function rowsAsRuns(request: RolloutRequest): RecordedRun[] {
  return request.rows.map((row, i) => ({
    runId: `check-${i}`,
    strategy: request.strategy,
    row,
    calls: [],
    toolCalls: [],
    sources: [],
    evidence: [],
    trajectory: [],
    drafts: [],
    answer: null,
    report: null,
    status: "completed",
    stopReason: "completed",
  }));
}

/** Creates the service (reads the latest policy version from the store). */
export async function createRolloutService(options: RolloutServiceOptions): Promise<RolloutService> {
  const { dossier } = options;
  const env = options.env ?? process.env;
  const queue = options.queue ?? null;
  const policies =
    options.policies ?? policyDossiers({ base: dossier, env, ...(options.cwd ? { cwd: options.cwd } : {}) });
  const executor: RolloutExecutor = queue
    ? await queueExecutor(queue, options.queueOptions)
    : embeddedExecutor();
  const versions: PolicyVersions = await loadPolicyVersions(dossier.store, () => dossier.clock.now());
  const slots = new PQueue({ concurrency: options.concurrency ?? DEFAULT_ROLLOUT_CONCURRENCY });
  const judges = options.judges ?? serviceJudges(dossier.config);
  const batches = new Map<string, Kept>();
  let closed = false;

  const kept = (id: string): Kept => {
    const found = batches.get(id);
    if (!found) throw new DossierError("NOT_FOUND", `no rollout batch ${id}`, { details: { id } });
    return found;
  };

  const forget = () => {
    const ended = [...batches.values()].filter((b) => b.state.status !== "running");
    for (const b of ended.slice(0, Math.max(0, ended.length - (options.keepBatches ?? DEFAULT_KEEP_BATCHES))))
      batches.delete(b.state.id);
  };

  /** Every check a request gets before anything is created; returns what the batch runs with. */
  const check = async (request: RolloutRequest) => {
    if (queue && request.policy.apiKey)
      throw new DossierError(
        "INPUT_INVALID",
        "policy.apiKey: rollouts go to the run queue, where a literal key would travel and be kept; name a variable set on every worker with policy.apiKeyEnv",
      );
    if (!queue) policyKey(request.policy, env);
    for (const [i, row] of request.rows.entries()) {
      const prompt = researchRequestSchema.shape.query.safeParse(row.prompt);
      if (!prompt.success)
        throw new DossierError("INPUT_INVALID", `rows.${i}.prompt: ${prompt.error.issues[0]?.message}`);
    }
    const rewardName = checkRunsForReward(request.reward.name, rowsAsRuns(request));
    if (request.reward.lambdas) {
      if (rewardName !== "minddr-search")
        throw new DossierError(
          "INPUT_INVALID",
          "reward.lambdas: only minddr-search takes Eq. 9's coefficients",
        );
      const { tool, format, prm } = request.reward.lambdas;
      searchLambdas(tool, format, prm);
    }
    // The judges are made now, so a service without a judge model refuses before any rollout.
    const batchJudges = judges();
    // In queue mode the key is read on the workers; the checks here need none.
    const local = queue ? { baseUrl: request.policy.baseUrl, model: request.policy.model } : request.policy;
    const policyDossier = policies.get(local);
    policyDossier.strategies.get(request.strategy);
    // The first rollout's run prepared, not started: what preparing a run refuses, the request is.
    const first = request.rows[0]!;
    await checkPreparation(
      policyDossier,
      first.prompt,
      rolloutResearchOptions(request, { row: first, index: 0, seed: 0 }),
      {
        env,
        cwd: options.cwd ?? process.cwd(),
      },
    );
    const rejectStale = request.rejectStale || options.rejectStale === true;
    const found = versions.peek(request.policyVersion);
    if (found.stale && rejectStale)
      throw new DossierError(
        "CONFLICT",
        `policyVersion ${JSON.stringify(request.policyVersion)} is older than the latest requested (${JSON.stringify(found.latest)}), and stale work is refused`,
        { details: { policyVersion: request.policyVersion, latest: found.latest } },
      );
    return { policyDossier, batchJudges, rejectStale };
  };

  const start = (request: RolloutRequest, checked: Awaited<ReturnType<typeof check>>): Kept => {
    const now = dossier.clock.now();
    const id = `batch-${createRunId(now)}`;
    const { apiKey: _key, ...policy } = request.policy;
    const rollouts: RolloutState[] = planRollouts(request.rows, request.group, request.seed).map((p) => ({
      key: p.key,
      row: p.row,
      index: p.index,
      seed: p.seed,
      runId: null,
      status: "pending",
      stopReason: null,
      error: null,
      answer: null,
      calls: 0,
      reward: null,
      components: null,
      details: null,
      advantage: null,
      startedAt: null,
      endedAt: null,
    }));
    const groups = new Map<string, GroupState>(
      request.rows.map((row) => [
        row.id,
        {
          id: row.id,
          keys: rollouts.filter((r) => r.row.id === row.id).map((r) => r.key),
          status: "open",
          dropped: false,
          error: null,
        },
      ]),
    );
    const state: BatchState = {
      id,
      request: { ...request, policy },
      policyVersion: request.policyVersion,
      rejectStale: checked.rejectStale,
      status: "running",
      rollouts,
      groups,
      events: batchEventLog(id, () => dossier.clock.now()),
      createdAt: new Date(now).toISOString(),
      endedAt: null,
    };
    const run = startBatch(state, {
      dossier: checked.policyDossier,
      executor,
      slots,
      judges: checked.batchJudges,
      beforeStart: (runId) =>
        savePolicyRecord(
          dossier.store,
          runId,
          { ...policy, batchId: id, policyVersion: request.policyVersion },
          dossier.clock.now(),
        ),
      ...(options.infraRetries !== undefined ? { infraRetries: options.infraRetries } : {}),
      ...(options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {}),
      now: () => dossier.clock.now(),
    });
    void run.done.then(forget, forget);
    return { state, run };
  };

  return {
    mode: executor.mode,
    async create(body) {
      if (closed) throw new DossierError("CONFLICT", "the rollout service is shutting down");
      const request = parseInput(rolloutRequestSchema, body, "rollout request");
      const checked = await check(request);
      const found = await versions.request(request.policyVersion);
      if (found.advanced)
        for (const b of batches.values())
          if (b.state.status === "running" && b.state.rejectStale && versions.isStale(b.state.policyVersion))
            b.run.refuseStale();
      const batch = start(request, checked);
      batches.set(batch.state.id, batch);
      return batchView(batch.state, versions);
    },
    view: (id) => batchView(kept(id).state, versions),
    results: async (id) => {
      const { state } = kept(id);
      return batchResults(state, versions, (r) => rolloutTokens(dossier, state, r));
    },
    events: (id) => kept(id).state.events,
    cancel(id, reason = "cancelled by the client") {
      const b = kept(id);
      b.run.cancel(reason);
      return batchView(b.state, versions);
    },
    ready: (timeoutMs) => servicesReady(dossier.store, queue, timeoutMs),
    async close(reason = "the rollout service is shutting down") {
      closed = true;
      const running = [...batches.values()].filter((b) => b.state.status === "running");
      for (const b of running) b.run.cancel(reason);
      await Promise.allSettled(running.map((b) => b.run.done));
      slots.clear();
      await policies.close();
    },
  };
}
