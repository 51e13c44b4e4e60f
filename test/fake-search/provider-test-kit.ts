/**
 * What the search provider tests share: a fresh fake search server per test, the call context a
 * provider is called with, and the error a call rejects with.
 */

import { afterEach, beforeAll, beforeEach, expect } from "vitest";
import type { DossierError } from "../../src/core/errors.ts";
import type { ProviderCallContext } from "../../src/tools/types.ts";
import { startFakeSearch } from "./server.ts";
import type { FakeSearch, FakeSearchOptions } from "./types.ts";

/**
 * Starts a fake search server before each test (handed to `use`) and closes it after the test.
 * Call at the top of a test file or a `describe`.
 */
export function useFakeSearch(use: (fake: FakeSearch) => void, options: FakeSearchOptions = {}): void {
  let started: FakeSearch | undefined;
  beforeEach(async () => {
    started = await startFakeSearch(options);
    use(started);
  });
  afterEach(async () => {
    await started?.close();
  });
}

/** Loads jsdom (arXiv's Atom parser loads it on first use) before the timed tests of a busy machine. */
export function preloadAtomParser(): void {
  beforeAll(async () => {
    await import("jsdom");
  }, 60_000);
}

/** The context a provider is called with: a live signal and the global fetch. */
export function callContext(): ProviderCallContext {
  return { signal: new AbortController().signal, fetch: globalThis.fetch };
}

/** The error `call` rejects with; fails the test when it resolves. */
export async function rejectionOf(call: Promise<unknown>): Promise<DossierError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error as DossierError;
}
