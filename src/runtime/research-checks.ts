/**
 * Checks of a research request made before anything runs: the strategy's options against its
 * schema, a cost budget only priced models can keep, and the documents folder.
 */

import { statSync } from "node:fs";
import type { z } from "zod";
import { DossierError } from "../core/errors.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import type { ParsedResearchRequest } from "./research-request.ts";
import { allowedValues, optionProperties } from "./strategy-option-schema.ts";

/**
 * The strategy's options from the request, checked against the strategy's schema. A refusal
 * names the strategy, the option and what it allows (or the options there are).
 */
export function parseStrategyOptions(
  definition: StrategyDefinition<unknown>,
  request: ParsedResearchRequest,
): unknown {
  const raw: Record<string, unknown> = {
    ...(request.maxSteps === undefined ? {} : { maxSteps: request.maxSteps }),
    ...request.strategyOptions,
  };
  const parsed = definition.optionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new DossierError(
    "INPUT_INVALID",
    `strategy ${definition.name}: ${optionIssue(definition, raw, parsed.error)}`,
    {
      details: { strategy: definition.name },
    },
  );
}

/** The first problem of a strategy's options in words. */
function optionIssue(
  definition: StrategyDefinition<unknown>,
  raw: Record<string, unknown>,
  error: z.ZodError,
): string {
  const issue = error.issues[0]!;
  const properties = optionProperties(definition.optionsSchema);
  const names = Object.keys(properties);
  if (issue.code === "unrecognized_keys") {
    const which = `${issue.keys.join(", ")} ${issue.keys.length > 1 ? "are not options" : "is not an option"} of the ${definition.name} strategy`;
    return names.length
      ? `${which}; its options are ${names.join(", ")} (see dossier strategies)`
      : `${which}, which has none`;
  }
  const key = issue.path[0];
  const property = typeof key === "string" ? properties[key] : undefined;
  if (typeof key !== "string" || !property) {
    return `${issue.path.length ? issue.path.join(".") : "options"}: ${issue.message}`;
  }
  const inner = issue.path.length > 1 ? ` (${issue.path.join(".")}: ${issue.message})` : "";
  return `option ${key} must be ${allowedValues(property)}, got ${shown(raw[key])}${inner}`;
}

/** A value as the error shows it: JSON, at most 80 characters. */
function shown(value: unknown): string {
  const text = value === undefined ? "nothing" : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** `--max-cost` is a promise only a priced model can keep: refuse it when a model has no price. */
export function checkCostBudget(
  definition: StrategyDefinition<unknown>,
  registry: ModelRegistry,
  maxCostUsd: number | undefined,
): void {
  if (maxCostUsd === undefined) return;
  const unpriced = [...new Set(definition.roles.map((role) => registry.forRole(role)))]
    .filter((model) => !model.price)
    .map((model) => model.name);
  if (unpriced.length === 0) return;
  const names = [...new Set(unpriced)];
  throw new DossierError(
    "INPUT_INVALID",
    `--max-cost needs a price for every model the run uses, and ${names.join(", ")} ${names.length > 1 ? "have" : "has"} none: add "prices": { "${names[0]}": { "inputPerMTok": …, "outputPerMTok": … } } to dossier.config.json (0 and 0 for a free local model), or use --max-tokens instead`,
    {
      details: {
        unpriced: names,
        apiMessage: `budget.maxCostUsd needs a price for every model the run uses, and ${names.join(", ")} ${names.length > 1 ? "have" : "has"} none in the server's configuration: use budget.maxTokens instead`,
      },
    },
  );
}

/** `--docs` must name a readable folder. */
export function checkDocsFolder(path: string, given: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new DossierError(
      "INPUT_INVALID",
      `--docs ${given}: ${code === "ENOENT" ? "no such folder" : `cannot be read (${code ?? "error"})`}`,
      { details: { path } },
    );
  }
  if (!stat.isDirectory()) {
    throw new DossierError(
      "INPUT_INVALID",
      `--docs ${given}: not a folder (give the folder that holds your documents)`,
      {
        details: { path },
      },
    );
  }
}
