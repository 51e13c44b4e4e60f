/**
 * The run side of claim verification (`verify` option): the models it needs, checked before a
 * run starts, and the model calls it adds to a run's estimate. `check` (the default) adds none.
 */

import type { VerifyMode } from "../core/claim-verdicts.ts";
import { DossierError } from "../core/errors.ts";
import { JUDGE_BATCH, JUDGE_MAX_CLAIMS } from "../eval/claims/judge.ts";
import type { ModelRegistry } from "../llm/registry.ts";
import type { EstimatedCall } from "../strategies/types.ts";

/** `judge` and `rewrite` need the judge (and the writer) model: refused before anything runs. */
export function checkVerifyModels(mode: VerifyMode, registry: ModelRegistry): void {
  if (mode === "off" || mode === "check") return;
  if (!registry.configured()) {
    throw new DossierError(
      "MODEL_NOT_CONFIGURED",
      `--verify ${mode} needs a model (the claim judge): set DOSSIER_MODEL, or use --verify check (the lexical check, no model)`,
      {
        details: {
          apiMessage: `verify "${mode}" needs a model on the server (DOSSIER_MODEL); use verify "check"`,
        },
      },
    );
  }
  registry.forRole("judge");
  if (mode === "rewrite") registry.forRole("writer");
}

/** The model calls verification adds to a run: judge batches, and for rewrite one writer call and a re-judging. */
export function verifyEstimate(mode: VerifyMode): EstimatedCall[] {
  if (mode === "off" || mode === "check") return [];
  const batches = Math.ceil(JUDGE_MAX_CLAIMS / JUDGE_BATCH);
  const calls: EstimatedCall[] = [{ role: "judge", count: [1, batches], input: 4000, output: 1200 }];
  if (mode === "rewrite") {
    calls.push({ role: "writer", count: [0, 1], input: 4000, output: 2000 });
    calls.push({ role: "judge", count: [0, 3], input: 3000, output: 900 });
  }
  return calls;
}
