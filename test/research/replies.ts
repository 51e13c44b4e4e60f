/**
 * Reading scripted model requests and writing their replies: the user-side text of a chat
 * request, its system text, and a JSON reply.
 */

import type { Reply } from "../fake-openai/types.ts";
import type { ChatBody } from "./model-script.ts";

type Content = ChatBody["messages"][number]["content"];

/** The text of one message's content (a string, or its text parts joined). */
export function contentText(content: Content): string {
  return typeof content === "string" ? content : content.map((p) => p.text ?? "").join("");
}

/** The system instructions of a request. */
export function systemText(body: ChatBody): string {
  return body.messages
    .filter((m) => m.role === "system")
    .map((m) => contentText(m.content))
    .join("\n");
}

/** Everything but the system instructions of a request (the prompt and any earlier turns). */
export function userText(body: ChatBody): string {
  return body.messages
    .filter((m) => m.role !== "system")
    .map((m) => contentText(m.content))
    .join("\n");
}

/** A reply whose text is `value` as JSON. */
export function json(value: unknown): Reply {
  return { kind: "text", text: JSON.stringify(value) };
}
