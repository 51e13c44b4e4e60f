/**
 * Test kit for warp protocol tests: a project folder of local notes, a Dossier whose model is a
 * strict scripted model, and scripted steps for each WARP action recognised by its
 * instructions. Every step is matched in order; an unexpected or unused call fails the test.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DossierEvent, EventOf } from "../../src/core/events.ts";
import { createDossier, type Dossier } from "../../src/runtime/dossier.ts";
import type { ResearchOptions } from "../../src/runtime/research-handle.ts";
import { type ScriptedCall, type ScriptStep, scriptedModel } from "../scripted/scripted-model.ts";

/** Instruction markers of the warp actions (and of the rubric scorer's calls). */
export const MARK = {
  search: "You choose search keywords",
  initialize: "You lay out the top-level sections",
  write: "You are drafting one section",
  deepen: "You decide how to deepen",
  rubric: "You write evaluation rubrics",
  judge: "You are a strict, impartial grader",
} as const;

/** A scripted step of one action. */
export const step = (
  action: keyof typeof MARK,
  reply: object | ((call: ScriptedCall) => unknown),
): ScriptStep => ({
  match: (prompt: string) => prompt.includes(MARK[action]),
  reply: (call) => ({ json: typeof reply === "function" ? reply(call) : reply }),
});

/** Passage ids shown in a prompt's `<passages>` block, in order. */
export function passageIds(prompt: string): string[] {
  const block = /<passages>\n([\s\S]*?)\n<\/passages>/.exec(prompt)?.[1] ?? "";
  return [...block.matchAll(/^\[(E\d+)\] /gm)].map((m) => m[1]!);
}

/** Passage texts shown in a prompt's `<passages>` block. */
export function passageTexts(prompt: string): string[] {
  const block = /<passages>\n([\s\S]*?)\n<\/passages>/.exec(prompt)?.[1] ?? "";
  return [...block.matchAll(/^\[E\d+\] \([^)]*\) (.*)$/gm)].map((m) => m[1]!);
}

/** A SEARCH answer. */
export const keywords = (...words: string[]) => ({ name: "search", keywords: words });
/** An INITIALIZE answer with these section titles. */
export const outline = (...titles: string[]) => ({
  name: "initialize",
  title: "Heat pumps in cold climates",
  sections: titles.map((t) => ({ title: t, plan: `Explain ${t.toLowerCase()} with evidence` })),
});
/** A WRITE answer citing the first `n` passages of the prompt, tagged with `tag`. */
export const write =
  (tag: string, n = 2) =>
  (call: ScriptedCall) => {
    // The whole prompt: a repair turn carries the passages in its first user message.
    const ids = passageIds(call.prompt).slice(0, n);
    return {
      name: "write",
      content: `${tag}: the passages show measured results for this part of the question ${ids.map((id) => `[${id}]`).join(" ")}.`,
    };
  };
/** An EXPAND answer. */
export const expand = (position: string, ...titles: string[]) => ({
  name: "expand",
  position,
  subsections: titles.map((t) => ({ title: t, plan: `Detail ${t.toLowerCase()}` })),
});
/** A TERMINATE answer. */
export const terminate = { name: "terminate" };

/** Draft-section steps for `count` sections: a one-keyword SEARCH and a WRITE each, tagged `S<k>`. */
export function drafts(tags: readonly string[]): ScriptStep[] {
  return tags.flatMap((tag) => [step("search", keywords("heat pump")), step("write", write(tag))]);
}

const dirs: string[] = [];
const open: Dossier[] = [];

/** Closes the Dossiers and removes the folders of the test. */
export async function cleanup(): Promise<void> {
  for (const d of open.splice(0)) await d.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Closes `dossier` with the others at {@link cleanup}. */
export function closeAtCleanup(dossier: Dossier): Dossier {
  open.push(dossier);
  return dossier;
}

/** A project with `files` notes of five headed sections each, all about heat pumps. */
export function notesProject(files = 8): { root: string; docs: string } {
  const root = mkdtempSync(join(tmpdir(), "dossier-warp-"));
  dirs.push(root);
  const docs = join(root, "notes");
  mkdirSync(docs);
  for (let i = 1; i <= files; i++) {
    writeFileSync(
      join(docs, `note-${i}.md`),
      [
        `# Heat pump note ${i}`,
        "",
        "## Efficiency",
        "",
        `Heat pump trial ${i} measured a seasonal coefficient of performance of ${2 + i / 10} in cold weather.`,
        "",
        "## Costs",
        "",
        `Installing a heat pump in district ${i} cost ${9000 + i * 250} euros on average in the survey.`,
        "",
        "## Grid",
        "",
        `Winter peak demand in grid zone ${i} rose ${i} percent where heat pump adoption grew fastest.`,
        "",
        "## Noise",
        "",
        `Outdoor units of heat pump model ${i} measured ${40 + i} decibels at night in the test.`,
        "",
        "## Upkeep",
        "",
        `Heat pump owners in panel ${i} reported maintenance visits every ${i + 1} years.`,
      ].join("\n"),
    );
  }
  return { root, docs };
}

/** A Dossier over a notes project whose model follows `steps` strictly. */
export function warpDossier(steps: ScriptStep[], files = 8) {
  const { root, docs } = notesProject(files);
  const model = scriptedModel(steps);
  const dossier = createDossier({
    env: { DOSSIER_HOME: join(root, ".dossier") },
    cwd: root,
    config: { model: "openai-compatible:scripted" },
    models: { "openai-compatible:scripted": model.model },
  });
  open.push(dossier);
  return { dossier, model, docs };
}

/** The question every warp test researches. */
export const WARP_QUESTION = "How do heat pumps perform in cold climates?";

/** The events of one type, typed. */
export const eventsOf = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

/** A warp run over the notes `docs` only, its events collected; `research` adds any option. */
export async function researchWarp(
  dossier: Dossier,
  docs: string,
  strategyOptions: Record<string, unknown> = {},
  research: Omit<ResearchOptions, "strategy" | "strategyOptions" | "docs" | "sources" | "onEvent"> = {},
) {
  const events: DossierEvent[] = [];
  const result = await dossier.research(WARP_QUESTION, {
    strategy: "warp",
    strategyOptions,
    docs,
    sources: "local-only",
    ...research,
    onEvent: (e) => events.push(e),
  }).done;
  return { result, events };
}
