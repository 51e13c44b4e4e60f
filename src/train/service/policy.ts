/**
 * The policy endpoint a rollout request names: an OpenAI-compatible server (vLLM, SGLang,
 * llama.cpp …) serving the checkpoint under training, its model name and its key. Every model
 * role of a rollout's run is served by it (the trajectory is the policy's); the service's own
 * configuration keeps the judge of the rewards and the search providers.
 *
 * The key is given as `apiKeyEnv` — the name of a variable, read where the rollout runs (the
 * service, or each `dossier worker`) and restricted to names starting with
 * {@link POLICY_KEY_ENV_PREFIX}, so a caller cannot make the service send another of its
 * secrets to an endpoint of the caller's choosing — or as a literal `apiKey`, kept in memory
 * only and therefore refused when rollouts go to the queue. Without either, requests carry
 * `Bearer EMPTY` (vLLM's convention for a server without a key), never the service's own
 * model key.
 *
 * What a worker needs to run a queued rollout with its policy is the {@link PolicyRecord},
 * kept in the shared store under the run's id (no key in it, only the variable's name).
 */

import { createHash } from "node:crypto";
import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { ROLES } from "../../llm/model-spec.ts";
import type { ConfigOverrides } from "../../runtime/config-load.ts";
import type { Store } from "../../store/types.ts";

/** A key variable's name must start with this. */
export const POLICY_KEY_ENV_PREFIX = "DOSSIER_POLICY_";

/** The key sent when the request names none (what vLLM's clients send to a server without a key). */
export const NO_POLICY_KEY = "EMPTY";

const httpUrl = z
  .string()
  .max(2000)
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), "expected an http(s) URL")
  .refine(
    (v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password),
    "credentials in the URL (user:password@) are not accepted; give the key as apiKeyEnv or apiKey",
  );

/** The policy endpoint of a rollout request. */
export const policyEndpointSchema = z
  .strictObject({
    baseUrl: httpUrl.describe(
      "the OpenAI-compatible base URL of the policy server, e.g. http://gpu-1:8000/v1",
    ),
    model: z
      .string()
      .min(1)
      .max(300)
      .regex(/^[^\s\u0000-\u001f]+$/, "expected a model name without spaces or control characters")
      .describe("the model name the server serves the policy under"),
    apiKeyEnv: z
      .string()
      .regex(
        new RegExp(`^${POLICY_KEY_ENV_PREFIX}[A-Z0-9_]+$`),
        `expected the name of an environment variable starting with ${POLICY_KEY_ENV_PREFIX}`,
      )
      .optional()
      .describe(
        `the variable holding the server's key, read where the rollouts run (this server, or every worker); its name starts with ${POLICY_KEY_ENV_PREFIX}`,
      ),
    apiKey: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe("the server's key itself; kept in memory only, so refused when rollouts go to the queue"),
  })
  .refine((p) => !(p.apiKeyEnv && p.apiKey), { message: "give apiKeyEnv or apiKey, not both" });
/** The policy endpoint of a rollout request. */
export type PolicyEndpoint = z.infer<typeof policyEndpointSchema>;

/** What the store keeps of a rollout's policy, under its run id: never a key. */
export const policyRecordSchema = z.object({
  baseUrl: z.string(),
  model: z.string(),
  apiKeyEnv: z.string().optional(),
  /** The rollout batch the run belongs to, and the policy version it was asked for. */
  batchId: z.string(),
  policyVersion: z.union([z.number(), z.string()]),
});
/** What the store keeps of a rollout's policy. */
export type PolicyRecord = z.infer<typeof policyRecordSchema>;

/** The store cache namespace of the policy records (key: the run id). */
export const POLICY_NAMESPACE = "rollout-policy";

/** The `provider:model` every role of a policy's runs resolves to. */
export function policyModelSpec(policy: Pick<PolicyEndpoint, "model">): string {
  return `openai-compatible:${policy.model}`;
}

/**
 * The key a policy's requests carry: the literal key, the variable's value, or
 * {@link NO_POLICY_KEY}. PROVIDER_NOT_CONFIGURED when the variable is named but not set.
 */
export function policyKey(
  policy: Pick<PolicyEndpoint, "apiKey" | "apiKeyEnv">,
  env: Record<string, string | undefined>,
): string {
  if (policy.apiKey) return policy.apiKey;
  if (!policy.apiKeyEnv) return NO_POLICY_KEY;
  if (!policy.apiKeyEnv.startsWith(POLICY_KEY_ENV_PREFIX))
    throw new DossierError(
      "INPUT_INVALID",
      `policy.apiKeyEnv must name a variable starting with ${POLICY_KEY_ENV_PREFIX}, got ${policy.apiKeyEnv}`,
    );
  const value = env[policy.apiKeyEnv]?.trim();
  if (!value)
    throw new DossierError(
      "PROVIDER_NOT_CONFIGURED",
      `the policy's key variable ${policy.apiKeyEnv} is not set where the rollouts run`,
      { details: { setting: policy.apiKeyEnv } },
    );
  return value;
}

/** The configuration overrides of a Dossier whose every role is served by the policy. */
export function policyConfig(
  policy: PolicyEndpoint,
  env: Record<string, string | undefined>,
): ConfigOverrides {
  const spec = policyModelSpec(policy);
  return {
    model: spec,
    models: Object.fromEntries(ROLES.filter((r) => r !== "default").map((r) => [r, spec])),
    baseUrl: policy.baseUrl,
    apiKey: policyKey(policy, env),
  };
}

/** A stable name of a policy endpoint and its key (for caching its Dossier; the key is hashed). */
export function policyFingerprint(policy: PolicyEndpoint, key: string): string {
  const keyHash = createHash("sha256").update(key).digest("hex");
  return JSON.stringify([policy.baseUrl, policy.model, policy.apiKeyEnv ?? null, keyHash]);
}

/** Keeps the policy record of run `runId` in the shared store. */
export async function savePolicyRecord(store: Store, runId: string, record: PolicyRecord, nowMs: number) {
  await store.cache.set(POLICY_NAMESPACE, runId, policyRecordSchema.parse(record), { nowMs });
}

/** The policy record of run `runId`, or null when the run is no rollout of the service. */
export async function readPolicyRecord(
  store: Store,
  runId: string,
  nowMs: number,
): Promise<PolicyRecord | null> {
  const value = await store.cache.get(POLICY_NAMESPACE, runId, nowMs);
  if (value === undefined) return null;
  const parsed = policyRecordSchema.safeParse(value);
  if (!parsed.success)
    throw new DossierError("STORE_ERROR", `the policy record of run ${runId} is not readable`, {
      details: { runId },
    });
  return parsed.data;
}
