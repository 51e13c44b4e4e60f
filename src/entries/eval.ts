/**
 * `dossier/eval`: the evaluation toolkit, one namespace per protocol (checks, deepsearch, fact,
 * grounding, preference, process metrics, RACE, retrieval metrics, rubric) — the same
 * namespaces `dossier` exports as `evaluation`.
 */

export * from "../eval/public.ts";
