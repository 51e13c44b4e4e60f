/**
 * SMTL's own tag protocol (seed: SMTL's inference code, summarised in the project's seed-code
 * survey §2.2–2.3, and App. D.1 of the paper), for the released checkpoints. Deep search (the
 * answer mode): a reply is free reasoning followed by `<plan>…</plan>` (the first step),
 * `<summary>…</summary>` (when asked for), one or more `<tool_call>{json}</tool_call>` blocks, or
 * `<answer>…</answer>`. Deep research adds `<subtask_list>`, `<subtask>`, `<analysis>` and
 * `<subtask_answer>`. A reply is well formed when every tag of its mode is balanced, it writes no
 * `<tool_response>` of its own, and it ends with one of the mode's closing tags; tool results go
 * back as one user message of `<tool_response>{json}</tool_response>` blocks.
 */

import type { ResearchToolName } from "../../kit/research-tools.ts";
import type { SmtlCall } from "./protocol.ts";

/** The tags of the deep-search (answer) mode. */
export const NATIVE_TAGS = ["tool_call", "summary", "plan", "answer"] as const;
/**
 * The tags of the deep-research mode (seed: SMTL App. D.1), with `<summary>` for the periodic
 * request to summarise the task's status.
 */
export const RESEARCH_TAGS = [
  "subtask_list",
  "subtask",
  "analysis",
  "plan",
  "tool_call",
  "subtask_answer",
  "summary",
  "answer",
] as const;
/** A tag of either mode. */
export type NativeTag = (typeof RESEARCH_TAGS)[number];

/** The seed's sampling for its checkpoints: temperature 1.0, top-p 0.9, 8,192 output tokens. */
export const NATIVE_SAMPLING = { temperature: 1.0, topP: 0.9 } as const;
/** Output cap of one native call. */
export const NATIVE_MAX_OUTPUT_TOKENS = 8192;

const listed = (tags: readonly string[]) =>
  `${tags
    .slice(0, -1)
    .map((t) => `</${t}>`)
    .join(", ")} or </${tags.at(-1)}>`;

/** Why a reply is malformed, or null (see the module comment); `tags` are the mode's. */
export function formatProblem(reply: string, tags: readonly NativeTag[] = NATIVE_TAGS): string | null {
  const text = reply.trim();
  if (!text) return "the reply is empty";
  for (const tag of tags) {
    const open = text.split(`<${tag}>`).length - 1;
    const close = text.split(`</${tag}>`).length - 1;
    if (open !== close) return `<${tag}> is opened ${open} time(s) and closed ${close} time(s)`;
  }
  if (text.includes("<tool_response>")) return "a reply never writes <tool_response>: the tools do";
  if (!tags.some((tag) => text.endsWith(`</${tag}>`))) return `the reply must end with ${listed(tags)}`;
  return null;
}

/** The text inside the first `<tag>…</tag>` of a reply, or null. */
export function tagContent(reply: string, tag: NativeTag): string | null {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(reply);
  return m ? m[1]!.trim() : null;
}

/** One tool call block: the call, or why it cannot run (it still gets a response). */
export type NativeCall =
  | { ok: true; call: SmtlCall; name: string; arguments: Record<string, unknown> }
  | { ok: false; error: string; name: string; arguments: unknown };

/** The model's name for each research tool and the arguments it takes. */
const TOOLS: Record<ResearchToolName, { name: string; args: readonly string[] }> = {
  web_search: { name: "web_search", args: ["query"] },
  read_page: { name: "crawl_page", args: ["url", "query"] },
  local_search: { name: "local_search", args: ["query"] },
  academic_search: { name: "academic_search", args: ["query"] },
};

/** The names and arguments of the tools a run allows, as the system prompt lists them. */
export function nativeToolList(
  tools: readonly ResearchToolName[],
): { name: string; args: readonly string[] }[] {
  return tools.map((t) => TOOLS[t]);
}

/**
 * The tool calls of a reply (`<tool_call>{"name": …, "arguments": {…}}</tool_call>`), in order.
 * A block that is not a JSON object, names an unknown tool or lacks an argument is kept as a
 * failed call, so the model is told instead of the call being dropped.
 */
export function parseToolCalls(reply: string, tools: readonly ResearchToolName[]): NativeCall[] {
  const byName = new Map(tools.map((t) => [TOOLS[t].name, t]));
  return [...reply.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)].map((m) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(m[1]!.trim());
    } catch {
      return {
        ok: false,
        error: "the tool call is not a JSON object",
        name: "",
        arguments: m[1]!.trim().slice(0, 300),
      };
    }
    const o = (parsed ?? {}) as { name?: unknown; arguments?: unknown };
    const name = typeof o.name === "string" ? o.name : "";
    const args = (o.arguments ?? {}) as Record<string, unknown>;
    const tool = byName.get(name);
    if (!tool) return { ok: false, error: `unknown tool "${name}"`, name, arguments: o.arguments };
    const missing = TOOLS[tool].args.filter(
      (a) => typeof args[a] !== "string" || !(args[a] as string).trim(),
    );
    if (missing.length)
      return { ok: false, error: `missing argument(s): ${missing.join(", ")}`, name, arguments: args };
    const text = (key: string) => (args[key] as string).trim();
    const call: SmtlCall =
      tool === "read_page"
        ? { tool: "crawl_page", url: text("url"), goal: text("query") }
        : { tool, query: text("query") };
    if (call.tool === "crawl_page" && !/^https?:\/\//i.test(call.url))
      return { ok: false, error: "crawl_page needs an http(s) URL", name, arguments: args };
    return { ok: true, call, name, arguments: args };
  });
}

/** One `<tool_response>` block. */
export function toolResponse(name: string, args: unknown, observation: string): string {
  return `<tool_response>\n${JSON.stringify({ name, arguments: args, observation })}\n</tool_response>`;
}
