/**
 * `dossier/eval`: the evaluation toolkit, one namespace per protocol (checks, deepsearch, fact,
 * grounding, preference, process metrics, RACE, retrieval metrics, rubric) — the same
 * namespaces `dossier` exports as `evaluation`.
 */

// First: an unsupported Node is refused with a clear message, not a module resolution error.
import "../core/node-check.ts";

export * from "../eval/public.ts";
