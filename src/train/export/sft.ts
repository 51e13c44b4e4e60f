/**
 * The `sft` export: one conversation per line, `{"messages": [...], "tools"?: [...]}` in the
 * chat format of chat-format.ts, which TRL's SFTTrainer (conversational language-modelling
 * dataset, with a `tools` column for tool calling) and OpenAI fine-tuning read.
 *
 * Two units:
 *
 * - `call` (default): one conversation per model call — the messages the model saw, then its
 *   raw completion as the final assistant turn; `tools` are the tools it was offered.
 * - `trajectory`: one conversation per agent. Within one scope (an agent, `search:T-2`), a
 *   call continues an earlier one when the earlier call's messages are a prefix of its own
 *   and the next message is an assistant turn (the agent kept its history). A call that no
 *   later call continues ends a conversation: its messages (the whole history, earlier answers
 *   and tool results included), then its completion. An agent that starts afresh at every
 *   step gives one conversation per step.
 *
 * A repair round — a call whose messages hold a reply the run refused, then why — is written as
 * the prompt before that reply, answered by the round's accepted completion: a refused reply is
 * never an assistant turn of a conversation.
 *
 * A forced-expansion warp run is taught pruned (WARP §2.3.1, curation/warp-pruned-run.ts): its
 * calls up to its best-scored draft, its forced decisions before the cut on the request the
 * policy would have had unforced, then the decision that saw the best draft relabelled TERMINATE
 * on that request; no later call. A forced run that cannot be pruned (recorded by an earlier
 * version) is skipped whole with the reason. `warpPruning: false` exports the calls as recorded.
 *
 * Left out, each with its reason: failed calls (no completion); calls with format errors
 * (a conversation holding one), unless `keepFormatErrors`; with `toolArguments: "object"`,
 * tool calls whose arguments are not a JSON object; anything that would not satisfy
 * {@link sftRecordSchema} (a tool turn answering no earlier tool call).
 */

import { z } from "zod";
import type { Role } from "../../llm/model-spec.ts";
import { callFormatOk, type RecordedCall, type RecordedMessage } from "../recorded-call.ts";
import type { RecordedRun } from "../recorded-run.ts";
import {
  type ChatMessage,
  chatMessageSchema,
  chatToolSchema,
  checkToolTurns,
  type ToolArgumentsForm,
  ToolArgumentsNotObject,
  toChatMessages,
  toChatTools,
} from "./chat-format.ts";
import type { ExportResult, ExportSkip } from "./export-result.ts";
import { trainedRun } from "./trained-run.ts";

/** One line of an `sft` file. */
export const sftRecordSchema = z
  .strictObject({
    messages: z.array(chatMessageSchema).min(2),
    tools: z.array(chatToolSchema).min(1).optional(),
  })
  .superRefine((record, ctx) => {
    if (record.messages.at(-1)?.role !== "assistant")
      ctx.addIssue({
        code: "custom",
        path: ["messages"],
        message: "a conversation ends with the assistant turn it teaches",
      });
    checkToolTurns(record.messages, ctx, ["messages"]);
  });
/** One line of an `sft` file. */
export type SftRecord = z.infer<typeof sftRecordSchema>;

/** Options of {@link sftRecords}. */
export interface SftOptions {
  /** One conversation per model call (default) or per agent trajectory. */
  unit?: "call" | "trajectory";
  /** Only calls that served these model roles (e.g. the policy's). */
  roles?: readonly Role[];
  /** Only calls of the scopes it accepts. */
  scope?: (scope: string) => boolean;
  /** Keep completions that raised format errors (default false). */
  keepFormatErrors?: boolean;
  /** Tool-call arguments as JSON text (default) or parsed objects. */
  toolArguments?: ToolArgumentsForm;
  /**
   * Forced-expansion warp runs pruned at their best draft (default true): their conversations
   * end at the relabelled TERMINATE, later calls left out (curation/warp-pruned-run.ts).
   */
  warpPruning?: boolean;
}

function sameMessage(a: RecordedMessage, b: RecordedMessage): boolean {
  if (a.role !== b.role || a.content !== b.content || a.toolCallId !== b.toolCallId) return false;
  const x = a.toolCalls ?? [];
  const y = b.toolCalls ?? [];
  return (
    x.length === y.length &&
    x.every((c, i) => c.id === y[i]!.id && c.name === y[i]!.name && c.arguments === y[i]!.arguments)
  );
}

/** True when `later` carries `earlier`'s messages and then an assistant turn: it continues it. */
export function continuesCall(earlier: RecordedCall, later: RecordedCall): boolean {
  const n = earlier.messages.length;
  return (
    later.messages.length > n &&
    later.messages[n]!.role === "assistant" &&
    earlier.messages.every((m, i) => sameMessage(m, later.messages[i]!))
  );
}

function selectedCalls(run: RecordedRun, options: SftOptions): RecordedCall[] {
  return run.calls.filter(
    (c) =>
      (!options.roles || options.roles.includes(c.role)) && (!options.scope || options.scope(c.scope ?? "")),
  );
}

/** The calls ending a conversation, each with the earlier calls of its scope it continues. */
export function conversations(
  calls: readonly RecordedCall[],
): { last: RecordedCall; members: RecordedCall[] }[] {
  const byScope = new Map<string, RecordedCall[]>();
  for (const call of calls) {
    const list = byScope.get(call.scope ?? "") ?? [];
    list.push(call);
    byScope.set(call.scope ?? "", list);
  }
  const out: { last: RecordedCall; members: RecordedCall[] }[] = [];
  for (const list of byScope.values())
    list.forEach((call, i) => {
      const later = list.slice(i + 1);
      if (later.some((l) => continuesCall(call, l))) return;
      const members = [...list.slice(0, i).filter((e) => continuesCall(e, call)), call];
      out.push({ last: call, members });
    });
  return out.sort((a, b) => calls.indexOf(a.last) - calls.indexOf(b.last));
}

/**
 * The messages before the first assistant turn that is a reply the run refused: a repair round
 * (the refused reply, then the note saying why) is taught as the prompt the model first had,
 * answered right — never with the refused reply as an assistant turn a trainer would learn.
 */
export function withoutRejectedReplies(
  messages: readonly RecordedMessage[],
  rejected: ReadonlySet<string>,
): RecordedMessage[] {
  const cut = messages.findIndex((m) => m.role === "assistant" && rejected.has(m.content.trim()));
  return cut < 0 ? [...messages] : messages.slice(0, cut);
}

/** The completions of a run's calls that raised a format error (refused replies). */
export function rejectedReplies(run: Pick<RecordedRun, "calls">): Set<string> {
  return new Set(
    run.calls.filter((c) => !callFormatOk(c) && c.completion.trim()).map((c) => c.completion.trim()),
  );
}

function conversationRecord(
  run: RecordedRun,
  last: RecordedCall,
  members: readonly RecordedCall[],
  options: SftOptions,
  rejected: ReadonlySet<string> = new Set(),
): SftRecord | ExportSkip {
  const skip = (reason: string): ExportSkip => ({ runId: run.runId, callId: last.callId, reason });
  if (last.error) return skip(`the call failed (${last.error.code})`);
  if (!options.keepFormatErrors) {
    const faulty = members.find((c) => !callFormatOk(c));
    if (faulty)
      return skip(
        faulty === last
          ? `format errors: ${faulty.formatErrors.join("; ")}`
          : `the conversation holds ${faulty.callId}, which raised format errors`,
      );
  }
  let messages: ChatMessage[];
  try {
    messages = [
      ...toChatMessages(withoutRejectedReplies(last.messages, rejected), options.toolArguments),
      { role: "assistant", content: last.completion },
    ];
  } catch (error) {
    if (error instanceof ToolArgumentsNotObject) return skip(error.message);
    throw error;
  }
  const parsed = sftRecordSchema.safeParse({
    messages,
    ...(last.tools && last.tools.length > 0 ? { tools: toChatTools(last.tools) } : {}),
  });
  return parsed.success ? parsed.data : skip(z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; "));
}

/** The `sft` records of recorded runs (see the module comment). */
export function sftRecords(runs: readonly RecordedRun[], options: SftOptions = {}): ExportResult<SftRecord> {
  const records: SftRecord[] = [];
  const skipped: ExportSkip[] = [];
  for (const given of runs) {
    const trained = trainedRun(given, { pruning: options.warpPruning, reprompt: true }, skipped);
    if (!trained) continue;
    const { run } = trained;
    const calls = selectedCalls(run, options);
    const rejected = rejectedReplies(run);
    const units =
      options.unit === "trajectory" ? conversations(calls) : calls.map((c) => ({ last: c, members: [c] }));
    for (const { last, members } of units) {
      const out = conversationRecord(run, last, members, options, rejected);
      if ("reason" in out) skipped.push(out);
      else records.push(out);
    }
  }
  return { records, skipped };
}
