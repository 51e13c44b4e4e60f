/**
 * Answers of the scripted research model for the mams strategy: the search agent issues two
 * searches in its first turn and finishes in the next (or gives its final plan once the
 * allowance is spent); the state agent rewrites the memory with the first sentence of every
 * passage of the fragment added as a fact; the report agent writes the report from the fragment's passages, each
 * quoted and cited, and keeps what the report already said.
 */

import { EXHAUSTED_LINE, MAMS_MARKERS } from "../../src/strategies/mams/prompts.ts";
import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** Marker lines of the mams agents' system prompts. */
export { MAMS_MARKERS };

/** The `<tag>` block of a prompt. */
const block = (user: string, tag: string) =>
  new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(user)?.[1] ?? "";

/** The passages of the fragment: evidence id and first sentence. */
function passages(user: string): { id: string; sentence: string }[] {
  const fragment = block(user, "fragment");
  return [...fragment.matchAll(/^\[(E\d+)\][^\n]*\n([^\n]+)/gm)].map(([, id, text]) => ({
    id: id!,
    sentence: (/^.*?[.!?](?=\s|$)/.exec(text!.trim())?.[0] ?? text!.trim()).replace(/…$/, ""),
  }));
}

/** The system text of a chat body. */
function systemOf(body?: { messages: { role: string; content: unknown }[] }): string {
  return (body?.messages ?? [])
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

/**
 * Search agent: two searches first — web searches (the fake engine picks pages by a query's
 * first number), or local searches when the run offers only `local_search` — then done.
 */
export function mamsSearchAnswer(
  user: string,
  body?: { messages: { role: string; content: unknown }[] },
): Reply {
  if (user.startsWith(EXHAUSTED_LINE)) return json({ plan: "- [x] survey\n- [x] adoption", calls: [] });
  const tool = systemOf(body).includes("- web_search ") ? "web_search" : "local_search";
  if (block(user, "memory") === "(empty)")
    return json({
      plan: "- [ ] survey the figures\n- [ ] adoption across regions",
      calls:
        tool === "web_search"
          ? [
              { tool, query: "topic 1 growth figures" },
              { tool, query: "topic 6 adoption" },
            ]
          : [
              { tool, query: "battery prices" },
              { tool, query: "grid storage installations" },
            ],
    });
  return json({ plan: "- [x] survey the figures\n- [x] adoption across regions", calls: [] });
}

/** State agent: the whole memory rewritten — its facts kept, then the first sentence of each passage, with its id. */
export function mamsStateAnswer(user: string): Reply {
  const memory = block(user, "memory");
  const kept = memory === "(empty)" ? [] : memory.split("\n").map((line) => line.replace(/^F\d+\. /, ""));
  return json({ memory: [...kept, ...passages(user).map((p) => `${p.sentence} [${p.id}]`)] });
}

/** Report agent: two sections quoting the passages with their ids, after what the report held. */
export function mamsReportAnswer(user: string): Reply {
  const found = passages(user);
  const half = Math.ceil(found.length / 2);
  const section = (title: string, items: typeof found) =>
    items.length ? `## ${title}\n\n${items.map((p) => `${p.sentence} [${p.id}]`).join(" ")}` : "";
  const current = block(user, "report");
  const kept = current.startsWith("(empty") ? "" : `${current}\n\n`;
  return json({
    report: `${kept}${[section("Measured growth", found.slice(0, half)), section("Adoption", found.slice(half))].filter(Boolean).join("\n\n")}`,
  });
}
