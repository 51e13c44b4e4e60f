/**
 * What a forced-expansion run records so its trajectory can be pruned for training (seed §2.3.1,
 * Appendix A.4): at every deepening decision the policy was forced to EXPAND, the decision request
 * it would have had without the forcing — the same state, TERMINATE offered, the expansions left
 * under the run's ordinary cap (`maxExpansions`, default 12). Pruning relabels the decision after
 * the best draft TERMINATE; that TERMINATE must answer this request, not the forced one (whose
 * instructions say "You must expand one section now" and whose schema has no TERMINATE).
 *
 * It is recorded on the decision's `trajectory-step` (`state.unforced`) and, when the cut is the
 * last draft (no decision followed it), on the engine's relabel marker. The request is the
 * protocol codec's, before the model client adds anything:
 *
 * - JSON protocol: the system prompt, the messages and the answer's JSON schema. Structured output
 *   then adds an instruction to the system prompt: for a model that reads the schema in the prompt,
 *   the schema as a type (`instruction`, the forced decision's being `forcedInstruction`); for a
 *   provider that shows the schema itself, a sentence that is the same for both. `forcedSystem`
 *   (the forced request's system prompt) lets a reader find that addition on the forced call as
 *   recorded and carry it over.
 * - native protocol (AgentCPM-Report's tags): the one user message, as sent.
 *
 * `terminate` is TERMINATE in the protocol's form: `{"name":"terminate"}`, or the seed's `nop`
 * action in tags.
 */

import type { Codec } from "../../kit/protocol/codec.ts";
import type { ChatMessage } from "../../llm/client.ts";
import { jsonInstruction } from "../../llm/structured.ts";
import { schemaToJson } from "../../llm/structured-mode.ts";
import type { DeepenAction, DeepenInput } from "./planner.ts";
import type { WarpProtocol } from "./sampling.ts";

/** The decision request of a forced decision without the forcing (see the module comment). */
export interface UnforcedDecision {
  protocol: WarpProtocol;
  /** The codec's system prompt (JSON protocol). */
  system?: string;
  /** The messages as sent; the last is the decision prompt. */
  messages: ChatMessage[];
  /** JSON protocol: the answer's JSON schema (TERMINATE offered). */
  responseSchema?: Record<string, unknown>;
  /** JSON protocol: the forced request's system prompt and the schema instructions of both requests. */
  structured?: { forcedSystem: string; forcedInstruction: string; instruction: string };
  /** TERMINATE as the protocol's reply. */
  terminate: string;
}

/** The seed's thought before a `nop` (its tag protocol asks for one). */
const NOP_THOUGHT =
  "The report answers the question with enough depth; no section needs to be divided further.";

/** TERMINATE in a protocol's form. */
export function terminateReply(protocol: WarpProtocol): string {
  return protocol === "native"
    ? `<thought>${NOP_THOUGHT}</thought>\n<action>{"name": "nop"}</action>`
    : JSON.stringify({ name: "terminate" });
}

/**
 * The unforced request of a forced decision at `input` (its state, language and the forced
 * run's expansions left); `expansionsLeft` is the ordinary cap's.
 */
export function unforcedDecision(
  codec: Codec<DeepenInput, DeepenAction>,
  protocol: WarpProtocol,
  input: DeepenInput,
  expansionsLeft: number,
): UnforcedDecision {
  const unforced: DeepenInput = { ...input, forced: false, expansionsLeft: Math.max(0, expansionsLeft) };
  if (codec.kind === "text") {
    const request = codec.request(unforced);
    return {
      protocol,
      ...(request.system ? { system: request.system } : {}),
      messages: request.messages.map((m) => ({ ...m })),
      terminate: terminateReply(protocol),
    };
  }
  const request = codec.request(unforced);
  const forced = codec.request({ ...input, forced: true });
  return {
    protocol,
    ...(request.system ? { system: request.system } : {}),
    messages: request.messages.map((m) => ({ ...m })),
    responseSchema: schemaToJson(request.schema) as Record<string, unknown>,
    structured: {
      forcedSystem: forced.system ?? "",
      forcedInstruction: jsonInstruction(forced.schema),
      instruction: jsonInstruction(request.schema),
    },
    terminate: terminateReply(protocol),
  };
}
