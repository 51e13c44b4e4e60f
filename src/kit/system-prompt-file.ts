/**
 * A checkpoint's own system prompt, supplied by the user as a file (the `systemPrompt` strategy
 * option): read once when the run starts, before any model call, and refused with a clear error
 * when the file is missing, unreadable or empty.
 */

import { readFile } from "node:fs/promises";
import { DossierError } from "../core/errors.ts";

/** The text of a system prompt file; `option` names the option in the error. */
export async function readSystemPromptFile(path: string, option: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new DossierError(
      "INPUT_INVALID",
      `${option}: cannot read the system prompt file "${path}" (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  if (!text.trim())
    throw new DossierError("INPUT_INVALID", `${option}: the system prompt file "${path}" is empty`);
  return text.trim();
}
