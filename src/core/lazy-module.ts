/**
 * Loading a dependency on first use instead of with the module that uses it, so importing
 * Dossier stays light: a function that needs jsdom (say) loads it when it first runs. For
 * synchronous code paths; asynchronous code uses `await import()`. CommonJS packages and ES
 * module packages without top-level await both load this way (Node 22.13+ requires ES
 * modules; an ES module's default export is the `default` property of what the getter returns).
 */

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A getter for the package `id`, loaded synchronously on the first call (and cached by
 * Node, as any `require`). Type it with the package's module type:
 * `lazyModule<typeof import("jsdom")>("jsdom")`.
 */
export function lazyModule<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}
