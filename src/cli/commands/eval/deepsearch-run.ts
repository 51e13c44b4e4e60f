/**
 * `dossier eval deepsearch --run`: every question answered with `ask` (the smtl strategy)
 * under a concurrency limit, before the answers are judged; per question the answer and the
 * run's figures, and over the set the average steps and tool calls per step.
 */

import PQueue from "p-queue";
import type { DeepsearchQuestion } from "../../../eval/deepsearch/question-files.ts";
import type { Dossier } from "../../../runtime/dossier.ts";

/** One question's run. */
export interface AskRunRecord {
  id: string;
  /** The answer, or null when the run gave none. */
  answer: string | null;
  runId: string | null;
  status: string;
  stopReason: string;
  verified: boolean;
  citations: number;
  steps: number;
  toolCalls: number;
  toolCallsPerStep: number | null;
  tokens: { input: number | null; output: number | null };
  wallMs: number | null;
  error?: { code: string; message: string };
}

/** Figures over the runs of a question set. */
export interface AskRunFigures {
  runs: number;
  answered: number;
  /** Mean tool-calling steps per question. */
  avgSteps: number | null;
  /** All tool calls over all steps (pooled over the questions). */
  toolCallsPerStep: number | null;
  /** Mean wall time per question, in ms. */
  avgWallMs: number | null;
}

/** Options of {@link askAll}. */
export interface AskAllOptions {
  /** Questions answered at once. */
  parallel: number;
  /** smtl options for every run (e.g. `maxSteps`). */
  strategyOptions?: Record<string, unknown>;
  /** Called after each question. */
  onDone?: (record: AskRunRecord, done: number) => void;
  signal?: AbortSignal;
}

/** Answers every question with `dossier.ask`, at most `parallel` at a time, in question order. */
export async function askAll(
  dossier: Pick<Dossier, "ask">,
  questions: readonly DeepsearchQuestion[],
  options: AskAllOptions,
): Promise<AskRunRecord[]> {
  const queue = new PQueue({ concurrency: options.parallel });
  let done = 0;
  return Promise.all(
    questions.map((q) =>
      queue.add(async (): Promise<AskRunRecord> => {
        const r = await dossier.ask(q.question, {
          ...(options.strategyOptions ? { strategyOptions: options.strategyOptions } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        const error = r.research.error;
        const record: AskRunRecord = {
          id: q.id,
          answer: r.answer.trim() ? r.answer : null,
          runId: r.runId,
          status: r.status,
          stopReason: r.stopReason,
          verified: r.verified,
          citations: r.citations.length,
          steps: r.steps,
          toolCalls: r.toolCalls,
          toolCallsPerStep: r.toolCallsPerStep,
          tokens: r.tokens,
          wallMs: r.wallMs,
          ...(error ? { error: { code: error.code, message: error.message } } : {}),
        };
        options.onDone?.(record, ++done);
        return record;
      }),
    ),
  );
}

/** Average steps and pooled tool calls per step over the runs. */
export function askRunFigures(records: readonly AskRunRecord[]): AskRunFigures {
  const steps = records.reduce((s, r) => s + r.steps, 0);
  const calls = records.reduce((s, r) => s + r.toolCalls, 0);
  const walls = records.map((r) => r.wallMs).filter((w): w is number => w !== null);
  return {
    runs: records.length,
    answered: records.filter((r) => r.answer !== null).length,
    avgSteps: records.length ? steps / records.length : null,
    toolCallsPerStep: steps ? calls / steps : null,
    avgWallMs: walls.length ? walls.reduce((a, b) => a + b, 0) / walls.length : null,
  };
}
