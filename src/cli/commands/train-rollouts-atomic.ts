/**
 * `dossier train rollouts <teacher-dir> --atomic <action> --group G --out DIR`: atomic-skill
 * rollouts (AgentCPM-Report Appendix A.6.1) — G samples of one WARP action (`initialize`,
 * `search`, `write`, `deepen`) from every teacher state of a folder of recorded warp rollouts,
 * into a rollouts folder that `train reward --reward warp-atomic` scores and `train export`
 * reads (train/atomic/). The policy is the configured model of each action's role; a SEARCH's
 * keywords are searched with the configured web search (top 5 per keyword). Every setting is
 * checked before the first model call; the flags of whole research runs are refused. Exit 0
 * when every sample is recorded, 1 otherwise, 130 after Ctrl-C.
 */

import { resolve } from "node:path";
import { DossierError } from "../../core/errors.ts";
import { sourceLocator } from "../../core/source.ts";
import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { ROLES } from "../../llm/model-spec.ts";
import type { CliIo } from "../io.ts";
import type { RolloutFlags } from "./train-rollouts.ts";

/** Flags of whole research runs, which atomic samples do not take. */
const RUN_FLAGS: [keyof RolloutFlags, string][] = [
  ["criteria", "--criteria"],
  ["references", "--references"],
  ["mode", "--mode"],
  ["maxSteps", "--max-steps"],
  ["maxExpansions", "--max-expansions"],
  ["forceExpand", "--force-expand"],
  ["sources", "--sources"],
  ["corpus", "--corpus"],
  ["maxTokens", "--max-tokens"],
  ["maxToolCalls", "--max-tool-calls"],
  ["maxMinutes", "--max-minutes"],
  ["maxCost", "--max-cost"],
  ["maxIterations", "--max-iterations"],
  ["language", "--language"],
  ["date", "--date"],
  ["queue", "--queue"],
  ["tokens", "--tokens"],
];

function number(flag: string, value: string | undefined, ok: (n: number) => boolean, what: string) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !ok(n))
    throw new DossierError("INPUT_INVALID", `${flag} must be ${what}, got "${value}"`);
  return n;
}

/** Runs `dossier train rollouts <teacher-dir> --atomic <action>`. Resolves to the exit code. */
export async function runAtomicRollouts(io: CliIo, teacher: string, flags: RolloutFlags): Promise<number> {
  const [{ createDossierForCli }, atomic, { llmSampler }, { searchWith }] = await Promise.all([
    import("../dossier-cli.ts"),
    import("../../train/atomic/atomic-rollouts.ts"),
    import("../../train/atomic/call-sampler.ts"),
    import("../../server/tool-calls.ts"),
  ]);
  const given = RUN_FLAGS.filter(([key]) => flags[key] !== undefined && flags[key] !== false).map(
    ([, f]) => f,
  );
  if (flags.strategy && flags.strategy !== "warp") given.push("--strategy (atomic samples are warp's)");
  if (flags.rows !== "rows") given.push("--rows");
  if ((flags.option ?? []).length > 0) given.push("--option");
  if (given.length > 0)
    throw new DossierError(
      "INPUT_INVALID",
      `--atomic samples one action from recorded teacher states; ${given.join(", ")} appl${given.length > 1 ? "y" : "ies"} to whole rollouts`,
    );
  if (!flags.out) throw new DossierError("INPUT_INVALID", "--out <dir> is required: the samples' folder");
  const integer = (flag: string, value: string | undefined, min: number) =>
    number(flag, value, (n) => Number.isInteger(n) && n >= min, `an integer ≥ ${min}`);
  const group = integer("--group", flags.group, 1)!;
  const seed = integer("--seed", flags.seed, 0)!;
  const concurrency = integer("--concurrency", flags.concurrency, 1) ?? 4;
  const limit = integer("--limit", flags.limit, 1);
  const temperature = number("--temperature", flags.temperature, (n) => n >= 0 && n <= 2, "between 0 and 2");
  const topP = number("--top-p", flags.topP, (n) => n > 0 && n <= 1, "in (0, 1]");

  const dossier = createDossierForCli(io, flags);
  const interrupt = new AbortController();
  const onSigint = () => {
    io.err("\ndossier: stopping the samples (recorded ones are kept; run again to resume)…\n");
    interrupt.abort("interrupted (Ctrl-C)");
  };
  try {
    if (flags.atomic === "search" && dossier.config.search.length === 0)
      throw new DossierError(
        "PROVIDER_NOT_CONFIGURED",
        "atomic SEARCH samples are searched on the web: set DOSSIER_SEARCH and the provider's key",
      );
    const policy: Record<string, string> = {};
    for (const role of ROLES) {
      try {
        policy[role] = dossier.models.forRole(role).name;
      } catch {
        // a role no model serves
      }
    }
    const retrieve = async (keywords: readonly string[]) => {
      const found = new Set<string>();
      for (const query of keywords) {
        const { results } = await searchWith(dossier, { query, topK: 5 });
        for (const r of results) if (typeof r.url === "string") found.add(sourceLocator({ url: r.url }));
      }
      return [...found];
    };
    process.on("SIGINT", onSigint);
    const run = atomic.runAtomicRollouts({
      teacherDir: resolve(io.cwd, teacher),
      dir: resolve(io.cwd, flags.out),
      action: flags.atomic!,
      group,
      seed,
      concurrency,
      ...(limit === undefined ? {} : { limit }),
      ...(temperature === undefined ? {} : { temperature }),
      ...(topP === undefined ? {} : { topP }),
      policy,
      sample: llmSampler(dossier.models, { signal: interrupt.signal }),
      retrieve,
      signal: interrupt.signal,
      onSample: (done, total) => {
        if (!flags.json && !io.isTty) io.err(`rollouts: ${done}/${total} samples\n`);
      },
    });
    const result = await run.catch((error: unknown) => {
      if (interrupt.signal.aborted) return null;
      throw error;
    });
    if (!result) return 130;
    const summary = {
      teacher: resolve(io.cwd, teacher),
      dir: resolve(io.cwd, flags.out),
      action: result.action,
      states: result.states,
      group,
      total: result.total,
      recorded: result.recorded,
      before: result.before,
      refused: result.refused,
      failures: result.failures,
      skippedTeachers: result.skippedTeachers,
      runs: result.runsFile,
    };
    if (flags.json) io.out(`${terminalJson(summary)}\n`);
    else {
      const lines = [
        `${result.recorded} sampled (${result.refused} no valid action), ${result.before} sampled before, of ${result.total} samples (${result.states} teacher states × ${group}, warp ${result.action})`,
        ...result.failures.map((f) => `failed ${f.key}: ${f.error}`),
        ...result.skippedTeachers.map((s) => `teacher run ${s.runId} gave no state: ${s.reason}`),
        `recorded runs: ${result.runsFile}`,
      ];
      io.out(`${lines.map(terminalLine).join("\n")}\n`);
    }
    if (interrupt.signal.aborted) return 130;
    return result.recorded + result.before === result.total ? 0 : 1;
  } finally {
    process.off("SIGINT", onSigint);
    await dossier.close();
  }
}
