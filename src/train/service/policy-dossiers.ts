/**
 * One Dossier per policy endpoint, sharing the store (and the limiter) of the process's own:
 * rollouts run in it, so every model role of their runs is served by the policy while the
 * search providers, budgets and data directory stay the process's. The service uses it for the
 * rollouts it runs itself; a `dossier worker` asks it for the Dossier of each job's run
 * ({@link PolicyDossiers.forRun}: the policy's when the store holds a policy record for the
 * run, else the worker's own), so a rollout is run by its policy however it reached the worker
 * — its first attempt, a retry, a run re-enqueued or taken over by a sweeper.
 *
 * At most {@link MAX_POLICY_DOSSIERS} are kept; the least recently used one with no run under
 * way is closed to make room.
 */

import { DossierError } from "../../core/errors.ts";
import { ROLES } from "../../llm/model-spec.ts";
import type { ConfigOverrides } from "../../runtime/config-load.ts";
import { createDossier, type Dossier } from "../../runtime/dossier.ts";
import type { ProviderLimiter } from "../../tools/provider-limiter.ts";
import {
  type PolicyEndpoint,
  policyConfig,
  policyFingerprint,
  policyKey,
  policyModelSpec,
  readPolicyRecord,
} from "./policy.ts";

/** Policy Dossiers kept at once. */
export const MAX_POLICY_DOSSIERS = 16;

/** Options of {@link policyDossiers}. */
export interface PolicyDossiersOptions {
  /** The process's own Dossier: its store is shared, and it runs what is no rollout. */
  base: Dossier;
  /** Where key variables are read. */
  env: Record<string, string | undefined>;
  /** Provider limits shared with other processes (a worker's limiter on Redis). */
  limiter?: ProviderLimiter;
  /**
   * Builds a Dossier from the policy's configuration overrides (default: the base's
   * configuration with the overrides on top, on the base's store, clock and data directory).
   */
  create?: (config: ConfigOverrides) => Dossier;
  /** Working directory of the default `create` (default `process.cwd()`). */
  cwd?: string;
}

/** The Dossiers of the policies a process runs rollouts for. */
export interface PolicyDossiers {
  /** The Dossier whose every role is served by `policy` (made once per endpoint and key). */
  get(policy: PolicyEndpoint): Dossier;
  /** The Dossier that runs `runId`: its policy's when it is a rollout of the service, else the base. */
  forRun(runId: string): Promise<Dossier>;
  /** Closes every policy Dossier (their runs under way are cancelled; the store stays open). */
  close(): Promise<void>;
}

/** The policy Dossiers of a process (see the module comment). */
export function policyDossiers(options: PolicyDossiersOptions): PolicyDossiers {
  const { base, env } = options;
  const create =
    options.create ??
    ((config: ConfigOverrides) =>
      createDossier({
        env,
        cwd: options.cwd ?? process.cwd(),
        store: base.store,
        clock: base.clock,
        config: { ...(base.config as ConfigOverrides), home: base.home, ...config },
        ...(options.limiter ? { limiter: options.limiter } : {}),
      }));
  /** By fingerprint, least recently used first. */
  const kept = new Map<string, Dossier>();

  const make = (policy: PolicyEndpoint): Dossier => {
    const key = policyKey(policy, env);
    const dossier = create(policyConfig(policy, env));
    // Every role must be the policy's, with the policy's key: a configuration layer that
    // overrode either would send the process's own model or key where it must not go.
    const spec = policyModelSpec(policy);
    const stray = ROLES.find((role) => dossier.models.specFor(role) !== spec);
    if (stray || dossier.config.apiKey !== key || dossier.config.baseUrl !== policy.baseUrl) {
      void dossier.close();
      throw new DossierError(
        "CONFIG_INVALID",
        `a configuration layer overrides the policy endpoint${stray ? ` (role ${stray})` : ""}; rollouts would not be served by the policy`,
      );
    }
    return dossier;
  };

  const evict = () => {
    for (const [fingerprint, dossier] of kept) {
      if (kept.size < MAX_POLICY_DOSSIERS) return;
      if (dossier.runs.active().length > 0) continue;
      kept.delete(fingerprint);
      void dossier.close();
    }
  };

  const get = (policy: PolicyEndpoint): Dossier => {
    const fingerprint = policyFingerprint(policy, policyKey(policy, env));
    let dossier = kept.get(fingerprint);
    if (dossier) kept.delete(fingerprint);
    else {
      evict();
      dossier = make(policy);
    }
    kept.set(fingerprint, dossier);
    return dossier;
  };

  return {
    get,
    async forRun(runId) {
      const record = await readPolicyRecord(base.store, runId, base.clock.now());
      if (!record) return base;
      return get({
        baseUrl: record.baseUrl,
        model: record.model,
        ...(record.apiKeyEnv ? { apiKeyEnv: record.apiKeyEnv } : {}),
      });
    },
    async close() {
      const all = [...kept.values()];
      kept.clear();
      await Promise.allSettled(all.map((d) => d.close()));
    },
  };
}
