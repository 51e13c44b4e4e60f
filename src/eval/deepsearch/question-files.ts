/**
 * File formats of `dossier eval deepsearch` (JSON Lines):
 *
 * - questions: `{"id": "1", "question": "…", "answer": "…"}` (`prompt` is accepted for `question`);
 * - answers:   `{"id": "1", "answer": "…"}` (`response` or `prediction` accepted for `answer`).
 */

import { z } from "zod";
import { DossierError } from "../../core/errors.ts";
import { readJsonl } from "../race/jsonl.ts";

/** A question with its reference answer. */
export interface DeepsearchQuestion {
  id: string;
  question: string;
  /** The reference answer. */
  answer: string;
  /** The benchmark's reference solution steps, when it has them. */
  referenceSteps?: string;
}

const id = z.union([z.string(), z.number()]).transform(String);

const questionLine = z
  .object({
    id,
    question: z.string().optional(),
    prompt: z.string().optional(),
    answer: z.union([z.string(), z.number()]),
  })
  .refine((q) => (q.question ?? q.prompt) !== undefined, { message: "needs question (or prompt)" })
  .transform((q) => ({ id: q.id, question: (q.question ?? q.prompt)!, answer: String(q.answer) }));

const answerLine = z
  .object({
    id,
    answer: z.union([z.string(), z.number()]).nullable().optional(),
    response: z.string().nullable().optional(),
    prediction: z.string().nullable().optional(),
  })
  .transform((a) => ({ id: a.id, answer: a.answer ?? a.response ?? a.prediction ?? null }));

/** Reads a questions file; duplicate ids are refused. */
export function loadQuestions(path: string): DeepsearchQuestion[] {
  const questions = readJsonl(path, questionLine);
  const seen = new Set<string>();
  for (const q of questions) {
    if (seen.has(q.id)) throw new DossierError("INPUT_INVALID", `${path}: duplicate id "${q.id}"`);
    seen.add(q.id);
  }
  return questions;
}

/** Reads an answers file into a map id → answer text (null / empty = no answer). */
export function loadAnswers(path: string): Map<string, string | null> {
  const map = new Map<string, string | null>();
  for (const a of readJsonl(path, answerLine)) {
    const text = a.answer === null ? null : String(a.answer);
    map.set(a.id, text === null || text.trim() === "" ? null : text);
  }
  return map;
}
