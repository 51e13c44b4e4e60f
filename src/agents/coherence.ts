/**
 * The coherence pass over a whole draft: the writer reads every section (shortened) and writes
 * the report's title, an introduction that frames the findings and a conclusion that draws them
 * together, citing evidence the sections cite. Sections themselves are not rewritten, so the
 * pass cannot lose content or citations.
 */

import { z } from "zod";
import { isDossierError } from "../core/errors.ts";
import { languageInstruction } from "./language.ts";
import type { RunContext } from "./run-context.ts";
import type { WrittenSection } from "./section-writer.ts";

/** What the coherence pass returns. */
export const coherenceSchema = z.object({
  title: z.string().min(3).describe("the final report title"),
  introduction: z
    .string()
    .min(20)
    .describe("2–4 paragraphs: the question, why it matters, and the main findings, with citations"),
  conclusion: z
    .string()
    .min(20)
    .describe("2–4 paragraphs drawing the sections together: answers, trade-offs, open questions"),
});
/** What the coherence pass returns. */
export type Coherence = z.infer<typeof coherenceSchema>;

/** Runs the pass; returns null when it cannot (the report is then assembled without it). */
export async function coherencePass(
  ctx: RunContext,
  input: { title: string; sections: readonly WrittenSection[]; language: string; guidance?: string },
): Promise<Coherence | null> {
  const draft = input.sections
    .map((s) => {
      const body =
        s.content.length > 900 ? `${s.content.slice(0, 700)} … ${s.content.slice(-200)}` : s.content;
      return `## ${s.sectionId} ${s.title}\n${body}`;
    })
    .join("\n\n");
  try {
    const { value } = await ctx.structured({
      role: "writer",
      schema: coherenceSchema,
      system: [
        "You are the editor of a research report. Read the draft and write its title, introduction and conclusion so the",
        "report reads as one coherent piece. Cite only evidence ids that appear in the draft, in square brackets, e.g. [E2].",
        `Today's date is ${ctx.currentDate}.`,
        languageInstruction(input.language),
        input.guidance ?? "",
      ]
        .filter(Boolean)
        .join("\n"),
      prompt: `Research question: ${ctx.query}\nWorking title: ${input.title}\n\n<draft>\n${draft}\n</draft>`,
      maxOutputTokens: 2000,
    });
    return value;
  } catch (error) {
    if (isDossierError(error, "CANCELLED")) throw error;
    return null;
  }
}
