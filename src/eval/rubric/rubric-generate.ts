/**
 * Generating a query rubric with a model: structured output (re-asked while the answer is not
 * a list of at least 7 items), then deterministic repair; when problems remain after repair,
 * the model is re-asked with them, a bounded number of times.
 */

import { DossierError } from "../../core/errors.ts";
import type { ChatMessage, LlmClient } from "../../llm/client.ts";
import type { Role } from "../../llm/model-spec.ts";
import { generateStructured } from "../../llm/structured.ts";
import { RUBRIC_GENERATOR_SYSTEM, rubricGeneratorPrompt } from "./rubric-prompts.ts";
import { repairRubricItems } from "./rubric-repair.ts";
import { generatedRubricSchema, type QueryRubric } from "./rubric-types.ts";

/** Options of {@link generateRubric}. */
export interface GenerateRubricOptions {
  /** The role whose model writes the rubric (default "rubricer"). */
  role?: Role;
  /** Re-asks after a rubric that is still invalid once repaired (default 1). */
  maxRounds?: number;
  /** The timestamp stored in the rubric (default now). */
  now?: () => string;
}

/** A generated rubric and how it was obtained. */
export interface GeneratedRubric {
  rubric: QueryRubric;
  /** Deterministic repairs applied to the accepted answer. */
  repairs: string[];
  /** Model calls made. */
  calls: number;
  /** Answers rejected (unparsable, or invalid after repair). */
  formatErrors: number;
}

/** Asks a model for a rubric for `query`; throws STRUCTURED_OUTPUT_FAILED when none is valid. */
export async function generateRubric(
  client: LlmClient,
  query: string,
  options: GenerateRubricOptions = {},
): Promise<GeneratedRubric> {
  const { role = "rubricer", maxRounds = 1, now = () => new Date().toISOString() } = options;
  const prompt = rubricGeneratorPrompt(query);
  const messages: ChatMessage[] = [];
  let calls = 0;
  let formatErrors = 0;
  let lastProblems: string[] = [];
  for (let round = 0; round <= maxRounds; round++) {
    const ask =
      round === 0
        ? prompt
        : `Fix these problems and answer again with the whole rubric:\n- ${lastProblems.join("\n- ")}`;
    const answer = await generateStructured(client, {
      role,
      system: RUBRIC_GENERATOR_SYSTEM,
      messages: [...messages],
      prompt: ask,
      schema: generatedRubricSchema,
    });
    calls += answer.calls;
    formatErrors += answer.formatErrors;
    const repaired = repairRubricItems(answer.value);
    if (repaired.problems.length === 0) {
      const model = client.resolve(role).name;
      return {
        rubric: { query, items: repaired.items, model, generatedAt: now() },
        repairs: repaired.repairs,
        calls,
        formatErrors,
      };
    }
    formatErrors++;
    lastProblems = repaired.problems;
    messages.push({ role: "user", content: ask }, { role: "assistant", content: answer.raw });
  }
  throw new DossierError(
    "STRUCTURED_OUTPUT_FAILED",
    `no valid rubric after ${calls} calls: ${lastProblems.join("; ")}`,
    {
      details: { role, calls, problems: lastProblems },
    },
  );
}
