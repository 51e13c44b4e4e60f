/**
 * A wire snapshot of scripted model calls: with `DOSSIER_WIRE_SNAPSHOT=<file>` set, every call a
 * scripted model receives is appended to the file as one JSON line — the test's name, and the
 * request as the provider sees it (prompt messages, response format, sampling, output cap). Two
 * snapshots of the same tests, taken before and after a change, show whether the requests a
 * strategy sends changed. Off (nothing written) when the variable is absent.
 */

import { appendFileSync } from "node:fs";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { expect } from "vitest";

/** Appends one call to the snapshot file named by `DOSSIER_WIRE_SNAPSHOT`, if any. */
export function recordWire(options: LanguageModelV4CallOptions): void {
  const file = process.env.DOSSIER_WIRE_SNAPSHOT;
  if (!file) return;
  const state = expect.getState();
  appendFileSync(
    file,
    `${JSON.stringify({
      test: `${state.testPath?.split("/src/").at(-1) ?? ""} > ${state.currentTestName ?? ""}`,
      prompt: options.prompt,
      responseFormat: options.responseFormat ?? null,
      temperature: options.temperature ?? null,
      topP: options.topP ?? null,
      maxOutputTokens: options.maxOutputTokens ?? null,
    })}\n`,
  );
}
