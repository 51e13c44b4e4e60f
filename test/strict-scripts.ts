/**
 * Vitest setup: a scripted model fails the test that used it on any unexpected call or any role
 * used less than declared. Setup files run before every test file, whatever the isolation
 * setting, so the check is registered in each file (a hook at the top level of a shared module
 * would be registered only in the first file of a worker that imports it).
 */

import { afterEach } from "vitest";
import { takeScriptViolations } from "./research/script-checks.ts";

afterEach(() => {
  const problems = takeScriptViolations();
  if (problems.length > 0)
    throw new Error(`the scripted model saw calls the test did not expect:\n${problems.join("\n")}`);
});
