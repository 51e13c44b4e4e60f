/**
 * The scripted models started since the last check, and their violations. A light module (no
 * engine imports): the vitest setup file `test/strict-scripts.ts` imports it for every test file,
 * and the research world registers each script it starts.
 */

/** What the check needs of a scripted model. */
export interface CheckedScript {
  /** Unexpected calls, then roles used less than declared. */
  violations(): string[];
}

const started = new Set<CheckedScript>();

/** Registers a script to be checked when the current test ends. */
export function registerScript(script: CheckedScript): void {
  started.add(script);
}

/** The violations of every script registered since the last call, which forgets them. */
export function takeScriptViolations(): string[] {
  const problems = [...started].flatMap((s) => s.violations());
  started.clear();
  return problems;
}
