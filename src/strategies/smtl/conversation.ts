/**
 * The smtl agent's conversation: the task message, then alternating model replies and tool
 * observations. A call sends the whole conversation; in the JSON protocol a rejected reply is not
 * recorded but its reason rides along with the next call; a reset keeps a single message (the
 * task and the refreshed plan or summary) and drops every older turn.
 */

import type { ChatMessage } from "../../llm/client.ts";
import { estimatePromptTokens } from "../../llm/token-estimate.ts";

/** The conversation of one smtl run. */
export class SmtlConversation {
  #turns: ChatMessage[];
  /** Why the last reply was rejected, sent with the next call only. */
  #note = "";
  readonly #sampling: { temperature?: number; topP?: number };

  /** `sampling`: the user's temperature and top-p, when set (else the provider's defaults). */
  constructor(task: string, sampling: { temperature?: number; topP?: number } = {}) {
    this.#turns = [{ role: "user", content: task }];
    this.#sampling = sampling;
  }

  /** The turns, oldest first; always starts and ends with a user message between calls. */
  get turns(): readonly ChatMessage[] {
    return this.#turns;
  }

  /**
   * The messages of the next call: the turns, the last user message followed by `extra` and by
   * the pending rejection, if any.
   */
  messages(extra = ""): ChatMessage[] {
    const last = this.#turns.at(-1)!.content;
    return [
      ...this.#turns.slice(0, -1),
      { role: "user", content: [last, extra, this.#note].filter(Boolean).join("\n\n") },
    ];
  }

  /** The user's sampling (temperature, top-p), when set. */
  get sampling(): { temperature?: number; topP?: number } {
    return this.#sampling;
  }

  /** Sends `reason` with the next call instead of recording the rejected reply. */
  reject(reason: string): void {
    this.#note = `Your last reply was rejected: ${reason.slice(0, 600)}\nReply again, following the protocol.`;
  }

  /** Forgets a pending rejection without recording anything. */
  clearRejection(): void {
    this.#note = "";
  }

  /** Records an accepted reply. */
  accept(raw: string): void {
    this.#note = "";
    this.#turns.push({ role: "assistant", content: raw });
  }

  /** Records what the tools returned (or any other message to the model). */
  tell(content: string): void {
    this.#turns.push({ role: "user", content });
  }

  /** Appends `text` to the last message (a request that rides with what the tools returned). */
  appendToLast(text: string): void {
    const last = this.#turns.at(-1)!;
    this.#turns[this.#turns.length - 1] = { ...last, content: `${last.content}\n\n${text}` };
  }

  /** Records a refinement: the request joins the last message, the reply and `after` follow. */
  recordRefinement(request: string, raw: string, after: string): void {
    this.appendToLast(request);
    this.accept(raw);
    this.tell(after);
  }

  /** Drops every turn and starts again from `message`; returns the number of turns dropped. */
  reset(message: string): number {
    const dropped = this.#turns.length - 1;
    this.#turns = [{ role: "user", content: message }];
    return dropped;
  }

  /** Estimated tokens of a call with `system` over the conversation. */
  size(system: string): number {
    return estimatePromptTokens([system, ...this.#turns.map((t) => t.content)]);
  }
}
