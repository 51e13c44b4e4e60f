/**
 * Checks of a research request made before anything runs: the strategy's options against its
 * schema, a cost budget only priced models can keep, and the documents folder.
 */

import { statSync } from "node:fs";
import { DossierError } from "../core/errors.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { StrategyDefinition } from "../strategies/types.ts";
import type { ParsedResearchRequest } from "./research-request.ts";

/** The strategy's options from the request, checked against the strategy's schema. */
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
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? issue.path.join(".") : "options";
  const message =
    issue.code === "unrecognized_keys"
      ? `${issue.keys.join(", ")} ${issue.keys.length > 1 ? "are not options" : "is not an option"} of the ${definition.name} strategy`
      : `${where}: ${issue.message}`;
  throw new DossierError("INPUT_INVALID", `strategy ${definition.name}: ${message}`);
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
