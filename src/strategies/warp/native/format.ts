/**
 * AgentCPM-Report's answer format and validator (hard mode), as the released checkpoints were
 * trained to it: every answer is `<thought>…</thought>` and `<action>…</action>` (first match
 * of each, across lines); the action is a JSON object whose key set must be exactly the
 * action's, except a WRITE, whose action is the section's Markdown itself. A missing thought
 * is tolerated (the seed only scores it); a missing or invalid action fails the step.
 *
 * | action | keys | checks |
 * |---|---|---|
 * | `search` | name, keywords | 1–5 keywords, each a non-empty string |
 * | `init-plan` | name, title, sections | 3–12 sections of exactly {title, plan}, non-empty; language |
 * | `extend-plan` | name, position, subsections | position `section-x` or `section-x.y` that may be expanded; 2–7 subsections of exactly {title, plan}; language |
 * | `nop` | name | — |
 * | write | (Markdown) | no `#`, no literal `bibkey`, longer than 50 characters, 1–12 `\cite` commands, every cited key one of this step's passages; language |
 *
 * The seed meant to check cited keys against the retrieved passages but its check never ran
 * (it looked for `\cite` in the passage list); here it does.
 */

import { inLanguage } from "../language-share.ts";
import { citeCommands, citedKeys } from "./keys.ts";

/** A parsed answer: the thought and the raw action text (null when there is no action tag). */
export interface TaggedAnswer {
  thought: string | null;
  action: string | null;
}

/** The result of validating an action. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** Most keywords of a SEARCH. */
export const MAX_NATIVE_KEYWORDS = 5;
/** Level-1 sections of an init-plan. */
export const NATIVE_SECTIONS = [3, 12] as const;
/** Subsections of an extend-plan. */
export const NATIVE_SUBSECTIONS = [2, 7] as const;
/** Most `\cite` commands of a WRITE. */
export const MAX_NATIVE_CITES = 12;

/** Splits an answer into its thought and action (the seed's non-greedy, multi-line matches). */
export function parseTagged(text: string): TaggedAnswer {
  const thought = /<thought>([\s\S]*?)<\/thought>/.exec(text);
  const action = /<action>([\s\S]*?)<\/action>/.exec(text);
  return { thought: thought ? thought[1]!.trim() : null, action: action ? action[1]!.trim() : null };
}

type Json = Record<string, unknown>;
type PlanItem = { title: string; plan: string };

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });
const sameKeys = (value: Json, keys: readonly string[]) => {
  const got = Object.keys(value).sort();
  const want = [...keys].sort();
  return got.length === want.length && got.every((k, i) => k === want[i]);
};
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v.length > 0;

/** Parses the action text as one JSON object of one of `names`. */
export function parseActionObject(action: string | null, names: readonly string[]): Checked<Json> {
  if (action === null) return fail("no <action>…</action> in the answer");
  let value: unknown;
  try {
    value = JSON.parse(action);
  } catch {
    return fail("the action is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return fail("the action is not a JSON object");
  const name = (value as Json).name;
  if (typeof name !== "string" || !names.includes(name))
    return fail(`the action name must be one of ${names.join(", ")}`);
  return { ok: true, value: value as Json };
}

function planItems(items: unknown, range: readonly [number, number], what: string): Checked<PlanItem[]> {
  if (!Array.isArray(items) || items.length === 0) return fail(`${what} must be a non-empty list`);
  for (const item of items) {
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return fail(`each of the ${what} must be an object`);
    if (!sameKeys(item as Json, ["title", "plan"]))
      return fail(`each of the ${what} must have exactly the keys title and plan`);
    const { title, plan } = item as Json;
    if (!nonEmpty(title) || !nonEmpty(plan)) return fail(`each of the ${what} needs a title and a plan`);
  }
  if (items.length < range[0] || items.length > range[1])
    return fail(`${range[0]}-${range[1]} ${what}, not ${items.length}`);
  return { ok: true, value: items as PlanItem[] };
}

const planText = (items: readonly PlanItem[], title = "") =>
  [title, ...items.flatMap((i) => [i.title, i.plan])].join("\n");

/** A SEARCH action. */
export function checkSearch(action: string | null): Checked<{ name: "search"; keywords: string[] }> {
  const parsed = parseActionObject(action, ["search"]);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (!sameKeys(v, ["name", "keywords"]))
    return fail("a search action has exactly the keys name and keywords");
  const keywords = v.keywords;
  if (!Array.isArray(keywords) || keywords.length === 0) return fail("keywords must be a non-empty list");
  if (!keywords.every(nonEmpty)) return fail("every keyword must be a non-empty string");
  if (keywords.length > MAX_NATIVE_KEYWORDS)
    return fail(`at most ${MAX_NATIVE_KEYWORDS} keywords, not ${keywords.length}`);
  return { ok: true, value: { name: "search", keywords: keywords as string[] } };
}

/**
 * What a search-state answer that is no search wants instead, or null: to finish (`nop`) or to
 * write (an action that is prose, not a JSON object). Before the run's first tool call either
 * means the policy wants to end or write without research.
 */
export function finishingInstead(action: string | null): "finish" | "write" | null {
  if (action === null || action === "") return null;
  if (!action.startsWith("{")) return "write";
  try {
    const value = JSON.parse(action) as unknown;
    return typeof value === "object" && value !== null && (value as Json).name === "nop" ? "finish" : null;
  } catch {
    return null;
  }
}

/** An init-plan action in `language`. */
export function checkInitPlan(
  action: string | null,
  language: string,
): Checked<{ name: "init-plan"; title: string; sections: PlanItem[] }> {
  const parsed = parseActionObject(action, ["init-plan"]);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (!sameKeys(v, ["name", "title", "sections"]))
    return fail("an init-plan action has exactly the keys name, title and sections");
  if (!nonEmpty(v.title)) return fail("the title must be a non-empty string");
  const sections = planItems(v.sections, NATIVE_SECTIONS, "sections");
  if (!sections.ok) return sections;
  if (!inLanguage(planText(sections.value, v.title), language))
    return fail("the outline is not in the language of the query");
  return { ok: true, value: { name: "init-plan", title: v.title, sections: sections.value } };
}

/** An extend-plan or nop action; `expandable` are the positions that may be expanded. */
export function checkExtendPlan(
  action: string | null,
  rules: { language: string; expandable: ReadonlySet<string>; nop: boolean },
): Checked<{ name: "extend-plan"; position: string; subsections: PlanItem[] } | { name: "nop" }> {
  const parsed = parseActionObject(action, rules.nop ? ["extend-plan", "nop"] : ["extend-plan"]);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (v.name === "nop") {
    if (!sameKeys(v, ["name"])) return fail("a nop action has exactly the key name");
    return { ok: true, value: { name: "nop" } };
  }
  if (!sameKeys(v, ["name", "position", "subsections"]))
    return fail("an extend-plan action has exactly the keys name, position and subsections");
  const position = v.position;
  if (!nonEmpty(position)) return fail("the position must be a non-empty string");
  if (!/^section-\d+(\.\d+)*$/.test(position)) return fail(`${position} is not a position like section-2.1`);
  if ((position.match(/\./g) ?? []).length >= 2) return fail(`${position} is too deep to expand`);
  if (!rules.expandable.has(position)) return fail(`${position} cannot be expanded`);
  const subsections = planItems(v.subsections, NATIVE_SUBSECTIONS, "subsections");
  if (!subsections.ok) return subsections;
  if (!inLanguage(planText(subsections.value), rules.language))
    return fail("the subsections are not in the language of the query");
  return { ok: true, value: { name: "extend-plan", position, subsections: subsections.value } };
}

/** A WRITE action: the Markdown in the action tag, citing only `keys`. */
export function checkWrite(
  action: string | null,
  rules: { language: string; keys: ReadonlySet<string> },
): Checked<{ name: "write"; content: string }> {
  const content = action ?? "";
  if (content.includes("#")) return fail("the content must not contain #");
  if (content.toLowerCase().includes("bibkey")) return fail("the content must not contain the word bibkey");
  if (content.trim().length <= 50) return fail("the content must be longer than 50 characters");
  if (!inLanguage(content, rules.language)) return fail("the content is not in the language of the query");
  const unknown = citedKeys(content).filter((k) => !rules.keys.has(k));
  if (unknown.length) return fail(`cited keys not retrieved for this section: ${unknown.join(", ")}`);
  const cites = citeCommands(content);
  if (cites > MAX_NATIVE_CITES) return fail(`at most ${MAX_NATIVE_CITES} \\cite, not ${cites}`);
  if (cites === 0) return fail("the content cites nothing (no \\cite)");
  return { ok: true, value: { name: "write", content: content.trim() } };
}
