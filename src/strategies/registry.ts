/**
 * The strategy registry: every research strategy Dossier can run, by name. The CLI's
 * `--strategy` choices, the runtime's dispatch, `--estimate`, the server and batch runs all
 * read it, so adding a strategy is one {@link StrategyDefinition} and one `register` call.
 */

import { DossierError } from "../core/errors.ts";
import { BUILTIN_STRATEGIES } from "./builtin.ts";
import type { StrategyDefinition } from "./types.ts";

const NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** Strategies by name. */
export class StrategyRegistry {
  readonly #definitions = new Map<string, StrategyDefinition<never>>();

  /** Adds a strategy. Names are lowercase words (`[a-z][a-z0-9-]*`) and unique. */
  register<O>(definition: StrategyDefinition<O>): this {
    if (!NAME.test(definition.name)) {
      throw new DossierError(
        "INPUT_INVALID",
        `strategy name "${definition.name}" must be a lowercase word of letters, digits and dashes`,
      );
    }
    if (this.#definitions.has(definition.name)) {
      throw new DossierError("INPUT_INVALID", `a strategy named "${definition.name}" is already registered`);
    }
    this.#definitions.set(definition.name, definition as unknown as StrategyDefinition<never>);
    return this;
  }

  /** True when a strategy of that name is registered. */
  has(name: string): boolean {
    return this.#definitions.has(name);
  }

  /** The strategy named `name`; a clear INPUT_INVALID error naming the choices otherwise. */
  get(name: string): StrategyDefinition<unknown> {
    const definition = this.#definitions.get(name);
    if (!definition) {
      throw new DossierError(
        "INPUT_INVALID",
        `unknown strategy "${name}": choose one of ${this.names().join(", ")}`,
        { details: { strategy: name, choices: this.names() } },
      );
    }
    return definition as unknown as StrategyDefinition<unknown>;
  }

  /** Registered names, in registration order. */
  names(): string[] {
    return [...this.#definitions.keys()];
  }

  /** Registered definitions, in registration order. */
  list(): StrategyDefinition<unknown>[] {
    return [...this.#definitions.values()] as unknown as StrategyDefinition<unknown>[];
  }
}

/** A registry holding the built-in strategies (graph, minddr, offline) and then `extra`. */
export function createStrategyRegistry(extra: readonly StrategyDefinition<never>[] = []): StrategyRegistry {
  const registry = new StrategyRegistry();
  for (const definition of BUILTIN_STRATEGIES) registry.register(definition);
  for (const definition of extra) registry.register(definition);
  return registry;
}
