/**
 * Vitest setup of `npm run bench:mutation`, run before every other setup file. Stryker's vitest
 * runner reuses its worker and the worker's module registry from one mutant run to the next, and
 * with explicit test files it switches every mutant on only when the tests start — after the
 * modules were evaluated. A mutant of module-level code (a constant table, a set of host names)
 * would then never take effect and would count as a survivor whatever the tests check. So the
 * run of such a "static" mutant (and the run after it, to drop the mutated module) starts from a
 * fresh module registry with its mutant already switched on: the tests import the module anew and
 * its top-level code runs mutated. Other runs keep the registry (re-importing the engine for
 * every mutant would cost seconds each). The static mutants are the ones the initial test run saw
 * covered while modules loaded; it leaves their ids in the sandbox for the mutant runs.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, inject, vi } from "vitest";

const get = (key: string) => inject(key as never) as unknown;
const idsFile = fileURLToPath(new URL("../.stryker-static-mutants.json", import.meta.url));
const space = globalThis as unknown as Record<
  string,
  { activeMutant?: unknown; mutantCoverage?: { static?: Record<string, number> } } | undefined
>;
const name = String(get("globalNamespace"));
const state = globalThis as { __dossierStaticMutantLoaded?: boolean };

const staticIds = (): Set<string> | null =>
  existsSync(idsFile) ? new Set(JSON.parse(readFileSync(idsFile, "utf8")) as string[]) : null;

if (get("mode") === "dry-run") {
  afterAll(() => {
    const seen = Object.keys(space[name]?.mutantCoverage?.static ?? {});
    writeFileSync(idsFile, JSON.stringify([...new Set([...(staticIds() ?? []), ...seen])]));
  });
} else if (get("mode") === "mutant") {
  const id = String(get("activeMutant"));
  const known = staticIds();
  // Without the list (it should always be there) every run starts fresh: slower, never wrong.
  const isStatic = known === null || known.has(id);
  if (isStatic || state.__dossierStaticMutantLoaded) {
    vi.resetModules();
    const ns = space[name] ?? {};
    space[name] = ns;
    ns.activeMutant = id;
  }
  state.__dossierStaticMutantLoaded = isStatic;
}
