/**
 * Test helpers of the server tests (not shipped): a project with an indexed corpus, a
 * strategy that waits until it is cancelled, and an SSE reader.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { DossierError } from "../core/errors.ts";
import { createOutline } from "../core/outline.ts";
import { assembleReport } from "../kit/report-assembly.ts";
import { createDossier, type Dossier, type DossierOptions } from "../runtime/dossier.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import { CorpusIndex } from "../tools/corpus/corpus-index.ts";
import { corpusPath } from "../tools/corpus/corpus-paths.ts";
import { indexDirectory } from "../tools/corpus/ingest.ts";

/** A temp project with a data directory and a corpus `notes` of two documents. */
export interface Project {
  root: string;
  home: string;
  docs: string;
  dossier: Dossier;
  close(): Promise<void>;
}

/** Creates a project and indexes its notes as corpus `notes`. */
export async function createProject(options: Partial<DossierOptions> = {}): Promise<Project> {
  const root = mkdtempSync(join(tmpdir(), "dossier-server-"));
  const home = join(root, ".dossier");
  const docs = await indexNotes(root, home);
  const dossier = createDossier({
    env: { DOSSIER_HOME: home },
    cwd: root,
    strategies: [holdStrategy as StrategyDefinition<never>, answerStrategy as StrategyDefinition<never>],
    ...options,
  });
  return {
    root,
    home,
    docs,
    dossier,
    async close() {
      await dossier.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Writes two notes under `root/notes` and indexes them as corpus `notes` of `home`; returns the folder. */
export async function indexNotes(root: string, home: string): Promise<string> {
  const docs = join(root, "notes");
  mkdirSync(docs, { recursive: true });
  writeFileSync(
    join(docs, "heat-pumps.md"),
    "# Heat pumps\n\n## Cold climates\n\nCold-climate heat pumps kept a coefficient of performance above 2 at minus 15 degrees in the field trial.\n\nDefrost cycles cost about 8 percent of the seasonal energy in the trial homes.\n",
  );
  writeFileSync(
    join(docs, "grid.md"),
    "# Grid\n\nWinter peak demand rose where heat pumps replaced gas boilers, according to the utility report.\n",
  );
  mkdirSync(join(home, "corpus"), { recursive: true });
  const index = CorpusIndex.open({ path: corpusPath(home, "notes"), create: true });
  try {
    await indexDirectory({ root: docs, index, corpus: "notes" });
  } finally {
    index.close();
  }
  return docs;
}

/** A strategy that emits `phases` phase events, then waits until the run is cancelled. */
export const holdStrategy: StrategyDefinition<{ phases?: number }> = {
  name: "hold",
  description: "emits a few events and waits to be cancelled (tests)",
  optionsSchema: z.object({ phases: z.number().int().min(0).optional() }).strict(),
  roles: [],
  capabilities: { needsModel: false, web: false, local: true },
  estimate: () => ({ llm: [], tools: [0, 0] }),
  async run(ctx, input) {
    for (let i = 1; i <= (input.options.phases ?? 3); i++) ctx.emit({ type: "phase", phase: `step ${i}` });
    await new Promise<never>((_, reject) => {
      const fail = () => reject(new DossierError("CANCELLED", String(ctx.signal.reason ?? "cancelled")));
      if (ctx.signal.aborted) fail();
      else ctx.signal.addEventListener("abort", fail, { once: true });
    });
    throw new Error("unreachable");
  },
};

/** A strategy that answers "42" at once (an ask without a model), with a one-section report. */
export const answerStrategy: StrategyDefinition<Record<string, never>> = {
  name: "answer",
  description: "answers 42 (tests)",
  optionsSchema: z.object({}).strict() as z.ZodType<Record<string, never>>,
  roles: [],
  capabilities: { needsModel: false, web: false, local: true },
  estimate: () => ({ llm: [], tools: [0, 0] }),
  async run(ctx, input) {
    ctx.emit({
      type: "answer-ready",
      answer: "42",
      verified: true,
      citations: [],
      evidence: [],
      steps: 1,
      toolCalls: 0,
      toolCallsPerStep: null,
    });
    const report = assembleReport(ctx, {
      title: "Answer",
      outline: createOutline([{ title: "Answer", plan: "the answer" }]),
      language: input.language,
      parts: [{ text: "## Answer\n\n42", allowed: new Set() }],
      stopReason: "answered",
    });
    return { stopReason: "answered", report };
  },
};

/** One parsed Server-Sent Event. */
export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** Reads the events of an SSE response; stops after `max` events (then cancels the body). */
export async function readSse(response: Response, max = Number.POSITIVE_INFINITY): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = "";
  try {
    while (events.length < max) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0 && events.length < max) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
        const fields = {
          id: undefined as string | undefined,
          event: undefined as string | undefined,
          data: [] as string[],
        };
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (name === "id") fields.id = value;
          else if (name === "event") fields.event = value;
          else if (name === "data") fields.data.push(value);
        }
        if (fields.data.length)
          events.push({ id: fields.id, event: fields.event, data: fields.data.join("\n") });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}
