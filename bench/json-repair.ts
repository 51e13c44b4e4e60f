/**
 * Malformed JSON from the model: research runs in the loopback world where a share of the
 * model's JSON answers is damaged, and the figures of structured output — answers rejected
 * (re-asks: `format-error` events; each is asked again unless it was a call's last attempt, and
 * counted the same way before and after repair existed), answers repaired in place
 * (`format-repair` events), model calls, fallbacks taken — summed over the seeds, per strategy
 * and fault.
 *
 * Faults (`--fault`):
 * - `truncate`: the chaos tests' fault, half of the JSON answers cut short at 30–90% of their
 *   length (`truncateJson`);
 * - `syntax`: half of the JSON answers written as a local model often writes them — a trailing
 *   comma, single quotes, Python `True`/`None`, a raw newline inside a string, some in a code
 *   fence with a line of prose (`malformJson`).
 *
 * Run: node bench/json-repair.ts [--fault truncate,syntax] [--strategies graph,minddr] [--seeds 6] [--share 0.5]
 */

import type { DossierEvent } from "../src/core/events.ts";
import { startResearchWorld, takeScriptViolations } from "../test/research/world.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const faults = (arg("fault") ?? "truncate,syntax").split(",");
const strategies = (arg("strategies") ?? "graph,minddr").split(",");
const seeds = Math.max(1, Number(arg("seeds") ?? 6));
const share = Number(arg("share") ?? 0.5);
const query = "How is topic adoption changing?";

interface Figures {
  runs: number;
  completed: number;
  llmCalls: number;
  reasks: number;
  repairs: number;
  failedStructured: number;
}

const count = (events: readonly DossierEvent[], type: string) => events.filter((e) => e.type === type).length;

console.log(
  `Node ${process.versions.node}; ${seeds} seeds per row, ${Math.round(share * 100)}% of JSON answers damaged; sums over the seeds`,
);
console.log(
  `${"fault".padEnd(10)}${"strategy".padEnd(10)}${"runs ok".padStart(8)}${"model calls".padStart(13)}${"re-asks".padStart(9)}${"repairs".padStart(9)}${"gave up".padStart(9)}`,
);
for (const fault of faults) {
  if (fault !== "truncate" && fault !== "syntax")
    throw new Error(`--fault: truncate or syntax, got ${fault}`);
  for (const strategy of strategies) {
    const f: Figures = { runs: 0, completed: 0, llmCalls: 0, reasks: 0, repairs: 0, failedStructured: 0 };
    for (let seed = 1; seed <= seeds; seed++) {
      const damage = { share, seed };
      const world = await startResearchWorld({
        subtasks: 5,
        ...(fault === "truncate" ? { truncateJson: damage } : { malformJson: damage }),
      });
      try {
        const result = await world.research({ query, strategy });
        f.runs++;
        if (result.record.status === "completed") f.completed++;
        f.llmCalls += result.events.filter((e) => e.type === "llm-end" && !e.replayed).length;
        f.reasks += count(result.events, "format-error");
        f.repairs += count(result.events, "format-repair");
        f.failedStructured += result.events.filter(
          (e) => e.type === "warning" && /FALLBACK|FAILED/.test(e.code),
        ).length;
      } finally {
        await world.close();
        takeScriptViolations();
      }
    }
    console.log(
      `${fault.padEnd(10)}${strategy.padEnd(10)}${`${f.completed}/${f.runs}`.padStart(8)}${String(f.llmCalls).padStart(13)}${String(f.reasks).padStart(9)}${String(f.repairs).padStart(9)}${String(f.failedStructured).padStart(9)}`,
    );
  }
}
