/**
 * The body of `POST /v1/rollouts`: question rows (as `dossier train rollouts` reads them), the
 * strategy and its options, the group size G, the policy endpoint and its sampling, the policy
 * version, the reward and its options, and whether token-level records are wanted. Checked
 * whole before anything is created; what the schema cannot check (the strategy and its options,
 * the rows against the reward, the judge, the version) is checked by the service next, still
 * before any run exists.
 */

// zod as extended by @hono/zod-openapi: these schemas are named in the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { budgetLimitsSchema } from "../../core/budget.ts";
import { sourcesSchema } from "../../core/run-options.ts";
import { questionRowSchema } from "../question-row.ts";
import { policyEndpointSchema } from "./policy.ts";
import { policyVersionSchema } from "./policy-versions.ts";

/** Rollouts one request may ask for at most (rows × group). */
export const MAX_ROLLOUTS_PER_REQUEST = 4096;
/** Largest group. */
export const MAX_GROUP = 64;

/** The reward of a request and its options. */
export const rolloutRewardSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .describe("a registered rollout reward: smtl, warp, minddr-search, minddr-report or rubric"),
  advantage: z.enum(["grpo", "rloo"]).default("grpo").describe("the group advantage: GRPO (default) or RLOO"),
  dapo: z
    .boolean()
    .default(false)
    .describe("DAPO's filter: a group whose rewards are all equal is marked dropped (no advantages)"),
  grpo: z
    .strictObject({
      epsilon: z.number().positive().max(1).optional(),
      std: z.enum(["sample", "population"]).optional(),
      scaleByStd: z.boolean().optional(),
    })
    .optional()
    .describe("GRPO's conventions: ε (default 1e-6), the standard deviation's divisor, scaling by it"),
  lambdas: z
    .strictObject({
      tool: z.number().min(0).max(1),
      format: z.number().min(0).max(1),
      prm: z.number().min(0).max(1),
    })
    .optional()
    .describe("minddr-search: Eq. 9's λ_tool, λ_format, λ_PRM (λ_ORM is 1 minus their sum, at most 0.5)"),
});
/** The reward of a request. */
export type RolloutReward = z.infer<typeof rolloutRewardSchema>;

/** The research options every rollout of a request shares. */
export const rolloutResearchSchema = z.strictObject({
  budget: budgetLimitsSchema.strict().optional().describe("limits of each rollout's run"),
  sources: sourcesSchema.optional().describe("web, local, both or local-only"),
  corpus: z.string().min(1).max(200).optional().describe("an indexed corpus of the server to search"),
  language: z
    .string()
    .min(2)
    .max(35)
    .optional()
    .describe("report language (default: the row's, else the question's)"),
  currentDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD")
    .optional()
    .describe("the current date the runs reason with (default today)"),
  maxSteps: z
    .number()
    .int()
    .min(0)
    .max(30)
    .optional()
    .describe("model-driven steps per search agent (minddr)"),
});

/** Sampling of the policy; the strategy's paper's when absent. */
export const rolloutSamplingSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
});

/** `POST /v1/rollouts`. */
export const rolloutRequestSchema = z
  .strictObject({
    rows: z
      .array(questionRowSchema)
      .min(1)
      .max(MAX_ROLLOUTS_PER_REQUEST)
      .describe(
        "question rows {id, prompt, answer?, entities?, reference?, rubric?}, as `dossier train rollouts` reads them",
      ),
    strategy: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/, "expected a strategy name such as smtl or warp")
      .describe("the research strategy of every rollout"),
    strategyOptions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "the strategy's own options (over the paper's sampling; smtl runs in answer mode unless told)",
      ),
    research: rolloutResearchSchema.optional(),
    group: z.number().int().min(1).max(MAX_GROUP).describe("rollouts per row (G)"),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0)
      .describe(
        "base of the rollouts' sampling seeds (distinct within a group, the same for the same request)",
      ),
    policy: policyEndpointSchema,
    sampling: rolloutSamplingSchema
      .optional()
      .describe("the policy's sampling (default: the strategy's paper's)"),
    policyVersion: policyVersionSchema.describe(
      "the version of the weights the policy server holds (integer or string); versions only move forward",
    ),
    rejectStale: z
      .boolean()
      .default(false)
      .describe(
        "refuse stale work: a request older than the latest version is answered 409, and once a newer version is requested no further rollout of this batch starts",
      ),
    reward: rolloutRewardSchema,
    tokens: z
      .boolean()
      .default(false)
      .describe(
        "token-level records: prompt and response token ids, the mask, the log-probs (from the policy server)",
      ),
  })
  .superRefine((body, ctx) => {
    const total = body.rows.length * body.group;
    if (total > MAX_ROLLOUTS_PER_REQUEST)
      ctx.addIssue({
        code: "custom",
        path: ["group"],
        message: `${body.rows.length} rows × group ${body.group} is ${total} rollouts; at most ${MAX_ROLLOUTS_PER_REQUEST} per request`,
      });
    const ids = new Set<string>();
    body.rows.forEach((row, i) => {
      if (ids.has(row.id))
        ctx.addIssue({ code: "custom", path: ["rows", i, "id"], message: `row id ${row.id} twice` });
      ids.add(row.id);
    });
    const options = body.strategyOptions ?? {};
    for (const key of ["temperature", "topP"] as const)
      if (body.sampling?.[key] !== undefined && options[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["sampling", key],
          message: `${key} is given in both sampling and strategyOptions`,
        });
  });
/** `POST /v1/rollouts` as given. */
export type RolloutRequestInput = z.input<typeof rolloutRequestSchema>;
/** `POST /v1/rollouts` with its defaults. */
export type RolloutRequest = z.output<typeof rolloutRequestSchema>;
