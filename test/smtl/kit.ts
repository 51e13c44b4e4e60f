/**
 * A small world for smtl protocol tests: a loopback server that answers SearXNG searches (with
 * latency, counting the searches in flight) and serves pages, and a Dossier whose one model is
 * a strict scripted model. Script helpers name each call kind by the line its system prompt
 * ends with, so a test reads as the protocol it expects.
 */

import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DossierEvent } from "../../src/core/events.ts";
import { createDossier, type Dossier, type DossierOptions } from "../../src/runtime/dossier.ts";
import { MODE_LINES } from "../../src/strategies/smtl/prompts.ts";
import { type FakeWeb, startFakeWeb } from "../fake-web/index.ts";
import {
  type ScriptedCall,
  type ScriptedModel,
  type ScriptReply,
  type ScriptStep,
  scriptedModel,
} from "../scripted/scripted-model.ts";

/** Kinds of model call an smtl run makes. */
export type CallKind = "plan" | "step" | "refine" | "final" | "reader";

const MARKERS: Record<CallKind, string> = {
  plan: MODE_LINES.plan,
  step: MODE_LINES.step,
  refine: MODE_LINES.refine,
  final: "evidence gathered by an agent whose search has ended",
  reader: "You read a single web page on behalf of a researcher",
};

/** The kind of a recorded call. */
export function kindOf(call: Pick<ScriptedCall, "system">): CallKind | "other" {
  for (const [kind, marker] of Object.entries(MARKERS) as [CallKind, string][])
    if (call.system.includes(marker)) return kind;
  return "other";
}

/** A scripted step taken only by a call of `kind`. */
export function on(kind: CallKind, reply: ScriptReply | ((call: ScriptedCall) => ScriptReply)): ScriptStep {
  return { match: (prompt: string) => prompt.includes(MARKERS[kind]), reply };
}

/** Evidence ids shown in a prompt, in order of first appearance. */
export function shownIds(prompt: string): string[] {
  return [...new Set([...prompt.matchAll(/\[(E\d+)\]/g)].map((m) => m[1]!))];
}

/** The text of page `n`. */
export function pageText(n: number): string {
  return `Station ${n} opened in ${1900 + n} on the northern line. It was designed by the architect Mara Vell and rebuilt after the flood of ${1950 + n}.`;
}

/** The reader's answer: the first two sentences of the page it was shown, verbatim. */
export function readerReply(call: ScriptedCall): ScriptReply {
  const page =
    /===== BEGIN UNTRUSTED PAGE TEXT \S+ =====\nTitle: .*\n\n([\s\S]*?)\n===== END/.exec(call.prompt)?.[1] ??
    "";
  const sentences = page.split(/(?<=\.)\s+/).filter((s) => s.length > 10);
  return {
    json: { rationale: "dates and architect", evidence: sentences.slice(0, 2), summary: sentences[0] ?? "" },
  };
}

/** A running kit. */
export interface SmtlKit {
  dossier: Dossier;
  /** How `dossier` was built (for the one-call API). */
  dossierOptions: DossierOptions;
  model: ScriptedModel;
  web: FakeWeb;
  /** Search queries received, in order. */
  queries: string[];
  /** Most searches in flight at once. */
  maxInFlight(): number;
  /** Events of the runs so far. */
  events: DossierEvent[];
  /** A temporary directory removed on close (the Dossier's working directory). */
  home: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the kit with a scripted model. */
export async function startSmtlKit(
  steps: ScriptStep[],
  options: { searchLatencyMs?: number } = {},
): Promise<SmtlKit> {
  const queries: string[] = [];
  let inFlight = 0;
  let max = 0;
  let origin = "";
  const search = async (req: { url?: string }, res: ServerResponse) => {
    const q = new URL(req.url ?? "/", "http://x").searchParams.get("q") ?? "";
    queries.push(q);
    inFlight++;
    max = Math.max(max, inFlight);
    try {
      if (options.searchLatencyMs) await sleep(options.searchLatencyMs);
    } finally {
      inFlight--;
    }
    const k = Number(/\d+/.exec(q)?.[0] ?? "1");
    const results = [0, 1, 2].map((i) => {
      const n = ((k - 1 + i) % 12) + 1;
      return { url: `${origin}/page/${n}`, title: `Station ${n}`, content: pageText(n), engine: "fake" };
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ query: q, number_of_results: results.length, results }));
  };
  const routes: Record<string, (req: never, res: ServerResponse) => Promise<void>> = { "/search": search };
  for (let n = 1; n <= 12; n++) {
    routes[`/page/${n}`] = async (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><html><head><title>Station ${n}</title></head><body><article><h1>Station ${n}</h1><p>${pageText(n)}</p></article></body></html>`,
      );
    };
  }
  const web = await startFakeWeb({ routes: routes as never });
  origin = web.origin;
  const model = scriptedModel(steps);
  const home = mkdtempSync(join(tmpdir(), "dossier-smtl-"));
  const dossierOptions: DossierOptions = {
    env: { DOSSIER_HOME: join(home, ".dossier") },
    cwd: home,
    config: {
      model: "openai-compatible:scripted",
      search: ["searxng"],
      searxngUrl: web.origin,
      allowPrivateNetwork: true,
    },
    models: { "openai-compatible:scripted": model.model },
    toolPolicy: { retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 1 } },
  };
  const dossier = createDossier(dossierOptions);
  return {
    dossier,
    dossierOptions,
    model,
    web,
    queries,
    maxInFlight: () => max,
    events: [],
    home,
    close: async () => {
      await dossier.close();
      await web.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
