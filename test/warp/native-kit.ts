/**
 * Test kit for warp's native protocol: an OpenAI-compatible fake model that answers exactly as
 * AgentCPM-Report's checkpoints do — `<thought>…</thought>` then `<action>…</action>`, a JSON
 * action for search / init-plan / extend-plan / nop and Markdown with `\cite{textidN}` for a
 * write — recognising each role prompt by its `** … **` input headers. A test may queue raw
 * answers per role (malformed ones) that are sent before the competent answer.
 */

import { join } from "node:path";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fake-openai/index.ts";
import type { RecordedRequest } from "../fake-openai/types.ts";
import { closeAtCleanup, notesProject } from "./kit.ts";

/** The four roles of the protocol. */
export type NativeRole = "search" | "init-plan" | "write" | "extend-plan";

/** The role of a prompt, by the input headers only that role's prompt has. */
export function nativeRole(prompt: string): NativeRole | null {
  if (prompt.includes("** Analyst's Instruction **")) return "search";
  if (prompt.includes("** Latest Retrieved Information **")) return "init-plan";
  if (prompt.includes("** Analyzer's Instruction **")) return "write";
  if (prompt.includes("** Current Full Report **")) return "extend-plan";
  return null;
}

/** The user message of a chat-completions body (the protocol sends exactly one). */
export function userMessage(request: RecordedRequest): string {
  const body = request.body as { messages: { role: string; content: string }[] };
  return body.messages.find((m) => m.role === "user")?.content ?? "";
}

/** An answer in the checkpoints' format. */
export const tagged = (thought: string, action: string) =>
  `<thought> ${thought} </thought>\n<action> ${action} </action>`;

/** Passage keys shown in a prompt, in order (`bibkey:textidN` lines). */
export function bibkeys(prompt: string): string[] {
  return [...prompt.matchAll(/^bibkey:(textid\d+)$/gm)].map((m) => m[1]!);
}

/** The cursor the Analyst's instruction names (`You need to update section-2`). */
export function cursorOf(prompt: string): string | null {
  return /^You need to update (\S+)$/m.exec(prompt)?.[1] ?? null;
}

/** Positions of the full report's nodes (`# Section-1 [Title]: …` lines), in order. */
export function reportPositions(prompt: string): string[] {
  return [...prompt.matchAll(/^ *#{1,3} Section-([\d.]+) \[/gm)].map((m) => m[1]!);
}

/** Level-1 and level-2 nodes of the full report without subsections, as `section-x.y`. */
export function expandable(prompt: string): string[] {
  const ids = reportPositions(prompt);
  return ids
    .filter((id) => id.split(".").length <= 2 && !ids.some((o) => o.startsWith(`${id}.`)))
    .map((id) => `section-${id}`);
}

/** Options of {@link startNativeModel}. */
export interface NativeModelOptions {
  /** Sections of the init-plan. */
  sections?: string[];
  /** Expansions the extend-plan makes (of the first candidate) before it answers nop. */
  expansions?: number;
  /** Raw answers sent first, per role, before the competent ones. */
  first?: Partial<Record<NativeRole, string[]>>;
}

/** The competent answer of each role. */
function competent(role: NativeRole, prompt: string, extended: number, options: NativeModelOptions): string {
  switch (role) {
    case "search": {
      const cursor = cursorOf(prompt) ?? "outline";
      const keywords = cursor === "outline" ? ["heat pump", "cold climate"] : ["heat pump"];
      return tagged(`Find material for ${cursor}.`, JSON.stringify({ name: "search", keywords }));
    }
    case "init-plan": {
      const sections = (options.sections ?? ["Efficiency", "Costs", "Grid"]).map((title) => ({
        title,
        plan: `Explain ${title.toLowerCase()} with evidence`,
      }));
      return tagged(
        "Three aspects cover the query.",
        JSON.stringify({ name: "init-plan", title: "Heat pumps in cold climates", sections }),
      );
    }
    case "write": {
      const cursor = cursorOf(prompt) ?? "?";
      const [a, b] = bibkeys(prompt);
      const content = `Content of ${cursor}: the trials measured the figures reported for this part of the question \\cite{${a}, ${b}}. They agree on the direction of the effect \\cite{${a}}.`;
      return tagged(`Use ${a} and ${b}.`, content);
    }
    case "extend-plan": {
      const candidate = expandable(prompt)[0];
      if (extended >= (options.expansions ?? 1) || !candidate)
        return tagged("The report is deep enough.", JSON.stringify({ name: "nop" }));
      const subsections = [
        { title: "Field trials", plan: "What field trials measured" },
        { title: "Lab tests", plan: "What laboratory tests measured" },
      ];
      return tagged(
        `Deepen ${candidate}.`,
        JSON.stringify({ name: "extend-plan", position: candidate, subsections }),
      );
    }
  }
}

/** A running native model and what it saw. */
export interface NativeModel {
  server: FakeOpenAI;
  /** Prompts per role, in order. */
  prompts: Record<NativeRole, string[]>;
  /** Unrecognised prompts. */
  unknown: string[];
}

/** Starts the fake server answering in the native format. */
export async function startNativeModel(options: NativeModelOptions = {}): Promise<NativeModel> {
  const prompts: Record<NativeRole, string[]> = { search: [], "init-plan": [], write: [], "extend-plan": [] };
  const unknown: string[] = [];
  const queued = Object.fromEntries(
    Object.entries(options.first ?? {}).map(([role, answers]) => [role, [...(answers ?? [])]]),
  ) as Partial<Record<NativeRole, string[]>>;
  let extended = 0;
  const server = await startFakeOpenAI({
    handler: (request) => {
      const prompt = userMessage(request);
      const role = nativeRole(prompt);
      if (!role) {
        unknown.push(prompt.slice(0, 200));
        return { kind: "error", status: 400 };
      }
      prompts[role].push(prompt);
      const first = queued[role]?.shift();
      if (first !== undefined) return { kind: "text", text: first };
      const text = competent(role, prompt, extended, options);
      if (role === "extend-plan" && text.includes('"extend-plan"')) extended++;
      return { kind: "text", text };
    },
  });
  return { server, prompts, unknown };
}

/** A Dossier over a notes project whose model is `model`'s server. */
export function nativeDossier(model: NativeModel): { dossier: Dossier; docs: string } {
  const { root, docs } = notesProject();
  const dossier = closeAtCleanup(
    createDossier({
      env: { DOSSIER_HOME: join(root, ".dossier") },
      cwd: root,
      config: { model: "openai-compatible:agentcpm-report", baseUrl: model.server.url, apiKey: "sk-test" },
    }),
  );
  return { dossier, docs };
}
