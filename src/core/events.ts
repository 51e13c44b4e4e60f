/**
 * Run events: the append-only audit trail of everything that happens in a run. Each event has
 * a per-run monotonic `seq`, an ISO timestamp and a `noun-verb` type. The UI, process metrics,
 * training-data export and resume all read this log.
 */

import { z } from "zod";
import { planChangesSchema, reviewPlanSchema } from "./review-plan.ts";
import { callUsageSchema, usageTotalsSchema } from "./usage.ts";

const errorShape = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean().optional(),
});

/** Event payloads, keyed by type. Strategy-specific structures are stored as JSON values. */
export const eventPayloadSchemas = {
  "run-start": z.object({
    query: z.string(),
    strategy: z.string(),
    options: z.record(z.string(), z.unknown()),
  }),
  /** A run taken up again after it was interrupted, cancelled or failed; replays its journal. */
  "run-resume": z.object({
    previousStatus: z.string(),
    /** Model and tool results the journal holds (replayed instead of called again). */
    journaledSteps: z.number().int(),
    /** Wall time the earlier attempts spent (counts against the budget). */
    previousWallMs: z.number(),
    /**
     * Model calls the earlier attempts paid for (answered, failed requests the provider received,
     * and lost), counted in this run's usage.
     */
    earlierLlmCalls: z.number().int().optional(),
    /**
     * Of those, calls in flight when an attempt ended (no llm-end): counted as lost, at their
     * estimated input and whole output cap.
     */
    lostCalls: z.number().int().optional(),
  }),
  "task-framed": z.object({ spec: z.unknown(), assumptions: z.array(z.string()).optional() }),
  phase: z.object({ phase: z.string(), detail: z.string().optional() }),
  "plan-update": z.object({ iteration: z.number().int(), graph: z.unknown(), diff: z.unknown().optional() }),
  "node-start": z.object({ nodeId: z.string(), nodeType: z.string(), title: z.string() }),
  "node-end": z.object({
    nodeId: z.string(),
    status: z.enum(["done", "failed"]),
    summary: z.string().optional(),
    error: errorShape.optional(),
  }),
  "llm-start": z.object({
    callId: z.string(),
    role: z.string(),
    model: z.string(),
    key: z.string(),
    attempt: z.number().int(),
    estimatedInputTokens: z.number(),
    /** The output cap sent (what a call lost in a crash is counted at). */
    maxOutputTokens: z.number().int().optional(),
    /** The tool call this call serves (a page reader's summary inside its crawl): the engine's work. */
    parentCallId: z.string().optional(),
  }),
  "llm-end": z.object({
    callId: z.string(),
    role: z.string(),
    model: z.string(),
    key: z.string(),
    ok: z.boolean(),
    replayed: z.boolean(),
    inputTokens: z.number().nullable(),
    outputTokens: z.number().nullable(),
    costUsd: z.number().nullable(),
    latencyMs: z.number(),
    formatErrors: z.number().int(),
    retries: z.number().int(),
    /** Part of the latency spent waiting for a slot of the model provider's shared limiter. */
    queueMs: z.number().optional(),
    error: errorShape.optional(),
    /**
     * A failed call (ok false): how its last request counts in the run's usage, one model call,
     * when the provider received it (core/usage.ts: failedRequestUsage); absent when it was never sent.
     */
    request: callUsageSchema.optional(),
  }),
  "llm-retry": z.object({
    callId: z.string(),
    role: z.string(),
    model: z.string(),
    attempt: z.number().int(),
    delayMs: z.number(),
    error: errorShape,
    /**
     * How the failed request counts in the run's usage, one model call, when the provider
     * received it (a 429 or 500 answer: 0 tokens; no usable answer: its estimate); absent when
     * it was never sent.
     */
    request: callUsageSchema.optional(),
  }),
  /** A structured answer rejected; `reask` when the model is asked again (not after the last attempt). */
  "format-error": z.object({
    callId: z.string(),
    role: z.string(),
    model: z.string(),
    attempt: z.number().int(),
    error: z.string(),
    excerpt: z.string(),
    reask: z.boolean().optional(),
  }),
  /**
   * A structured answer that was malformed JSON (a trailing comma, single quotes, Python
   * literals, a raw newline in a string…), repaired and accepted without asking again: the
   * repaired value passed the schema. (An answer cut short is never repaired.)
   */
  "format-repair": z.object({
    callId: z.string(),
    role: z.string(),
    model: z.string(),
    attempt: z.number().int(),
    excerpt: z.string(),
  }),
  /**
   * One recorded model call (runs with `recordCalls`; see llm/call-recorder.ts): what the model
   * saw and said, stored compactly — the messages shared with an earlier call of the same agent
   * and role are named by `prefix`, an assistant turn repeating a call's completion by
   * `completionOf`, a response schema given before by `schemaOf`. Usage is on the call's llm-end.
   */
  "llm-call": z.object({
    callId: z.string(),
    role: z.string(),
    model: z.string(),
    step: z.number().int().positive(),
    /** The tool call this call served (a page reader's summary): the engine's work, not an agent step. */
    toolCallId: z.string().optional(),
    prefix: z.object({ callId: z.string(), count: z.number().int().positive() }).optional(),
    messages: z.array(
      z.object({
        role: z.enum(["system", "user", "assistant", "tool"]),
        content: z.string().optional(),
        completionOf: z.string().optional(),
      }),
    ),
    responseSchema: z.record(z.string(), z.unknown()).optional(),
    schemaOf: z.string().optional(),
    sampling: z.object({
      temperature: z.number().optional(),
      topP: z.number().optional(),
      maxOutputTokens: z.number().int().optional(),
      seed: z.number().int().optional(),
    }),
    completion: z.string(),
    formatErrors: z.array(z.string()),
    finishReason: z.string().optional(),
    replayed: z.boolean(),
    startedAt: z.string(),
    error: errorShape.optional(),
    /**
     * Runs with `recordTokens` (llm/token-capture.ts): the server's token ids and log-probs (null
     * when it returned none), and whether decoding was constrained to a schema. `prefix` names the
     * first `count` ids of an earlier call's prompt ids followed by its completion ids; `promptIds`
     * holds the rest of the prompt's.
     */
    tokens: z
      .object({
        constrained: z.boolean(),
        prefix: z.object({ callId: z.string(), count: z.number().int().positive() }).optional(),
        promptIds: z.array(z.number().int().nonnegative()).nullable(),
        completionIds: z.array(z.number().int().nonnegative()).nullable(),
        logprobs: z.array(z.number()).nullable(),
      })
      .optional(),
  }),
  "tool-start": z.object({
    callId: z.string(),
    tool: z.string(),
    provider: z.string().optional(),
    args: z.unknown(),
    /** The tool call this one serves (a page fetch inside a crawl): the engine's work, not the agent's. */
    parentCallId: z.string().optional(),
  }),
  "tool-end": z.object({
    callId: z.string(),
    tool: z.string(),
    provider: z.string().optional(),
    ok: z.boolean(),
    cached: z.boolean(),
    latencyMs: z.number(),
    /** Part of the latency spent waiting for a slot of the provider's queue. */
    queueMs: z.number().optional(),
    error: errorShape.optional(),
    resultCount: z.number().int().optional(),
    note: z.string().optional(),
    /** A fetched page's `ETag` and `Last-Modified`, for a later conditional fetch (a refresh's). */
    validators: z.object({ etag: z.string().optional(), lastModified: z.string().optional() }).optional(),
    /** A search's result URLs, in order (what a later refresh counts as already seen). */
    urls: z.array(z.string()).optional(),
  }),
  /** A plan node that will not run, and why (the planner's revision, or the stop of the loop). */
  "node-pruned": z.object({
    nodeId: z.string(),
    reason: z.string(),
    by: z.enum(["planner", "stop"]),
  }),
  "node-assessed": z.object({
    nodeId: z.string(),
    verdict: z.string(),
    reason: z.string(),
    iteration: z.number().int(),
  }),
  "gate-verdict": z.object({
    nodeId: z.string(),
    verdict: z.enum(["approve", "revise", "drop", "run-revised"]),
    round: z.number().int(),
    feedback: z.string(),
  }),
  "source-add": z.object({ source: z.unknown() }),
  "evidence-add": z.object({ evidence: z.unknown() }),
  "rubric-update": z.object({ kind: z.string(), rubric: z.unknown() }),
  "outline-update": z.object({ outline: z.unknown(), reason: z.string().optional() }),
  "section-written": z.object({
    sectionId: z.string(),
    title: z.string(),
    chars: z.number().int(),
    citations: z.number().int(),
  }),
  decision: z.object({
    decision: z.enum(["continue", "stop"]),
    reason: z.string(),
    details: z.unknown().optional(),
  }),
  warning: z.object({ code: z.string(), message: z.string() }),
  /** One step of a policy's trajectory: the state it saw, the action it took and its answer (warp). */
  "trajectory-step": z.object({
    step: z.number().int(),
    action: z.string(),
    state: z.unknown(),
    answer: z.unknown(),
  }),
  /** An intermediate draft of the report, kept so it can be scored (trajectory pruning). */
  "draft-snapshot": z.object({
    index: z.number().int(),
    step: z.number().int(),
    expansions: z.number().int(),
    markdown: z.string(),
    outline: z.unknown(),
  }),
  /** A draft snapshot's score by an evaluation scorer (null when scoring failed). */
  "draft-scored": z.object({ index: z.number().int(), scorer: z.string(), score: z.number().nullable() }),
  /** An entry of the shared reasoning trace (XoT memory) that every agent of the run may read. */
  "xot-add": z.object({ agent: z.string(), kind: z.string(), text: z.string() }),
  /** One parallel step of an agent (smtl): its number and the tool calls it ran at once. */
  "step-end": z.object({
    step: z.number().int(),
    toolCalls: z.number().int(),
    failed: z.number().int(),
  }),
  /** A plan refinement (smtl): goal statuses and next sub-paths; `forced` at the context budget. */
  "plan-refine": z.object({ step: z.number().int(), forced: z.boolean(), plan: z.unknown() }),
  /** The conversation was cut back to the task and the refreshed plan at the context budget. */
  "context-reset": z.object({
    step: z.number().int(),
    droppedTurns: z.number().int(),
    tokensBefore: z.number().int(),
    tokensAfter: z.number().int(),
  }),
  /** A short answer with its citations and figures (smtl; read by `ask`). */
  "answer-ready": z.object({
    answer: z.string(),
    verified: z.boolean(),
    citations: z.unknown(),
    evidence: z.array(z.string()),
    steps: z.number().int(),
    toolCalls: z.number().int(),
    toolCallsPerStep: z.number().nullable(),
  }),
  /** Claims of the report checked against their passages (see eval/claims): counts and shares per verdict. */
  "claims-verified": z.object({
    mode: z.string(),
    claims: z.number().int(),
    judged: z.number().int(),
    counts: z.record(z.string(), z.number().int()),
    shares: z.record(z.string(), z.number()),
  }),
  /** An unsupported claim revised or dropped by the writer (`verify: rewrite`). */
  "claim-revised": z.object({
    claim: z.number().int(),
    action: z.enum(["revise", "drop"]),
    before: z.string(),
    after: z.string(),
  }),
  /**
   * A refresh compared its report with the version it refreshes (`dossier refresh`): the sections
   * rewritten, the claims and citations added and removed, each cited page's state, and the diff files.
   */
  "report-diff": z.object({
    refreshOf: z.string(),
    version: z.number().int(),
    sectionsChanged: z.array(z.string()),
    claimsAdded: z.number().int(),
    claimsRemoved: z.number().int(),
    citationsAdded: z.number().int(),
    citationsRemoved: z.number().int(),
    pages: z.array(
      z.object({
        url: z.string(),
        state: z.enum(["unchanged", "changed", "vanished", "unreachable", "new"]),
        etag: z.string().optional(),
        lastModified: z.string().optional(),
      }),
    ),
    paths: z.array(z.string()),
  }),
  "report-ready": z.object({
    formats: z.array(z.string()),
    paths: z.array(z.string()).optional(),
    stats: z.unknown(),
  }),
  /**
   * The run stopped after its plan for the user's review (`reviewPlan`): the plan as data, and
   * when the review times out. The attempt then ends with run-end `awaiting-review`.
   */
  "plan-review": z.object({
    plan: reviewPlanSchema,
    deadline: z.string(),
    timeoutMinutes: z.number(),
  }),
  /**
   * The review's answer: approved as proposed, edited (`plan` is the plan the run executes,
   * `changes` what the edit changed), rejected (with the user's reason) or timed out unanswered.
   */
  "plan-reviewed": z.object({
    action: z.enum(["approve", "edit", "reject", "timeout"]),
    plan: reviewPlanSchema.optional(),
    changes: planChangesSchema.optional(),
    reason: z.string().optional(),
  }),
  "run-end": z.object({
    /** `awaiting-review`: the attempt stopped after the plan (see plan-review); the run goes on once answered. */
    status: z.enum(["completed", "failed", "cancelled", "awaiting-review"]),
    stopReason: z.string(),
    usage: usageTotalsSchema.optional(),
    error: errorShape.optional(),
  }),
} as const;

/** All event types. */
export type EventType = keyof typeof eventPayloadSchemas;
/** All event types, as a list. */
export const EVENT_TYPES = Object.keys(eventPayloadSchemas) as EventType[];

/** The payload of an event of type `T`. */
export type EventPayload<T extends EventType> = z.infer<(typeof eventPayloadSchemas)[T]>;

/** An event as emitted by code, before the log stamps it. */
export type EventInput = { [T in EventType]: { type: T } & EventPayload<T> }[EventType];

/** Fields the log adds to every event. */
export interface EventStamp {
  runId: string;
  /** Per-run monotonic sequence number, starting at 1. */
  seq: number;
  /** ISO timestamp. */
  ts: string;
  /** The agent or step the event happened in (`planner`, `search:T-2`, `section:1.2`), when known. */
  scope?: string;
}

/** A stored event. */
export type DossierEvent = EventInput & EventStamp;

/** An event of one type. */
export type EventOf<T extends EventType> = Extract<DossierEvent, { type: T }>;

const stampShape = {
  runId: z.string(),
  seq: z.number().int().positive(),
  ts: z.string(),
  scope: z.string().optional(),
};

/** Validates a stored event (used when reading the log back). */
export const dossierEventSchema = z.discriminatedUnion(
  "type",
  EVENT_TYPES.map((type) =>
    (eventPayloadSchemas[type] as z.ZodObject).extend({ type: z.literal(type), ...stampShape }),
  ) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]],
);

/** Receives events. */
export type EventSink = (event: EventInput) => void;
