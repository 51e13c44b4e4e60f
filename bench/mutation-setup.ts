/**
 * Vitest setup of `npm run bench:mutation`, run before every other setup file. Stryker's vitest
 * runner reuses its worker and the worker's module registry from one mutant run to the next, and
 * with explicit test files it switches every mutant on only when the tests start — after the
 * modules were evaluated. A mutant of module-level code (a constant table, a set of host names)
 * would then never take effect and would count as a survivor whatever the tests check. So each
 * mutant run starts from a fresh module registry with its mutant already switched on: the tests
 * import the module anew, and its top-level code runs mutated.
 */

import { inject, vi } from "vitest";

const get = (key: string) => inject(key as never) as unknown;
if (get("mode") === "mutant") {
  vi.resetModules();
  const space = globalThis as unknown as Record<string, { activeMutant?: unknown } | undefined>;
  const name = String(get("globalNamespace"));
  const ns = space[name] ?? {};
  space[name] = ns;
  ns.activeMutant = get("activeMutant");
}
