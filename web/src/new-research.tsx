/**
 * The new-research form: question, strategy and its own options, sources, corpus, whether to
 * review the plan before research, budgets, formats, estimate.
 */

import { useEffect, useState } from "preact/hooks";
import { api, type Estimate, type RunView, type StrategyInfo } from "./api.ts";
import { navigate } from "./router.tsx";
import { optionValues } from "./strategy-options.ts";
import { StrategyOptionsFields } from "./strategy-options-fields.tsx";

const SOURCES = [
  ["both", "Web and local documents"],
  ["web", "Web only"],
  ["local", "Local documents"],
  ["local-only", "Local documents only (no network)"],
] as const;
/** The report formats and how the form names them (pdf needs chromium on the server). */
const FORMATS = [
  ["md", "Markdown"],
  ["html", "HTML"],
  ["json", "JSON bundle"],
  ["pdf", "PDF"],
  ["docx", "Word (DOCX)"],
] as const;

interface FormValues {
  question: string;
  strategy: string;
  sources: string;
  corpus: string;
  minutes: string;
  toolCalls: string;
  tokens: string;
  cost: string;
  formats: string[];
  /** Stop after the plan until it is approved, edited or rejected on the run page. */
  reviewPlan: boolean;
  /** The chosen strategy's option fields by name. */
  options: Record<string, string>;
}

/**
 * The create-run body of the form's values and the strategy's typed options (empty fields are
 * left to the server's defaults).
 */
export function runBody(
  v: FormValues,
  strategyOptions: Record<string, unknown> = {},
): Record<string, unknown> {
  const budget: Record<string, number> = {};
  const n = (s: string) => (s.trim() === "" ? null : Number(s));
  const minutes = n(v.minutes);
  if (minutes !== null && minutes > 0) budget.maxWallMs = Math.round(minutes * 60_000);
  const tools = n(v.toolCalls);
  if (tools !== null && tools >= 0) budget.maxToolCalls = Math.round(tools);
  const tokens = n(v.tokens);
  if (tokens !== null && tokens > 0) budget.maxTokens = Math.round(tokens);
  const cost = n(v.cost);
  if (cost !== null && cost > 0) budget.maxCostUsd = cost;
  return {
    question: v.question.trim(),
    ...(v.strategy ? { strategy: v.strategy } : {}),
    ...(v.strategy && Object.keys(strategyOptions).length ? { strategyOptions } : {}),
    ...(v.sources ? { sources: v.sources } : {}),
    ...(v.corpus ? { corpus: v.corpus } : {}),
    ...(Object.keys(budget).length ? { budget } : {}),
    ...(v.formats.length ? { formats: v.formats } : {}),
    ...(v.reviewPlan ? { reviewPlan: true } : {}),
  };
}

const range = (r: [number, number], f: (n: number) => string = String) =>
  r[0] === r[1] ? f(r[0]) : `${f(r[0])}–${f(r[1])}`;

export function NewResearch() {
  const [strategies, setStrategies] = useState<StrategyInfo[]>([]);
  const [corpora, setCorpora] = useState<string[]>([]);
  const [v, setV] = useState<FormValues>({
    question: "",
    strategy: "",
    sources: "",
    corpus: "",
    minutes: "",
    toolCalls: "",
    tokens: "",
    cost: "",
    formats: ["md", "html", "json"],
    reviewPlan: false,
    options: {},
  });
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api<{ strategies: StrategyInfo[] }>("/v1/strategies").then(
      (r) => setStrategies(r.strategies),
      (e) => setError(String(e.message ?? e)),
    );
    api<{ corpora: string[] }>("/v1/corpora").then(
      (r) => setCorpora(r.corpora),
      () => {},
    );
  }, []);
  const set = (patch: Partial<FormValues>) => {
    setV({ ...v, ...patch });
    setEstimate(null);
  };
  const chosen = strategies.find((s) => s.name === v.strategy);
  /** The request body, or null (and the problems shown) when an option field is invalid. */
  const body = () => {
    const { values, problems } = optionValues(chosen?.options ?? [], v.options);
    if (problems.length > 0) {
      setError(problems.join("; "));
      return null;
    }
    return runBody(v, values);
  };

  return (
    <section aria-labelledby="new-h">
      <h1 id="new-h">New research</h1>
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          setError("");
          const request = body();
          if (!request) return;
          setBusy(true);
          try {
            const { run } = await api<{ run: RunView }>("/v1/runs", { method: "POST", body: request });
            navigate(`/runs/${encodeURIComponent(run.id)}`);
          } catch (err) {
            setError((err as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="question">Question</label>
        <textarea
          id="question"
          name="question"
          rows={4}
          required
          minLength={3}
          maxLength={8000}
          value={v.question}
          onInput={(e) => set({ question: e.currentTarget.value })}
        />
        <div class="grid">
          <div>
            <label for="strategy">Strategy</label>
            <select
              id="strategy"
              value={v.strategy}
              onChange={(e) => set({ strategy: e.currentTarget.value, options: {} })}
            >
              <option value="">Default</option>
              {strategies.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name}
                </option>
              ))}
            </select>
            <p class="hint" id="strategy-desc">
              {chosen ? chosen.description : "Default: graph with a model, offline with only a corpus."}
            </p>
          </div>
          <div>
            <label for="sources">Sources</label>
            <select id="sources" value={v.sources} onChange={(e) => set({ sources: e.currentTarget.value })}>
              <option value="">Default</option>
              {SOURCES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="corpus">Corpus</label>
            <select id="corpus" value={v.corpus} onChange={(e) => set({ corpus: e.currentTarget.value })}>
              <option value="">None</option>
              {corpora.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </div>
        </div>
        <StrategyOptionsFields
          strategy={v.strategy}
          options={chosen?.options ?? []}
          values={v.options}
          onChange={(options) => set({ options })}
        />
        <div>
          <label class="check">
            <input
              type="checkbox"
              checked={v.reviewPlan}
              aria-describedby="review-plan-hint"
              onChange={(e) => set({ reviewPlan: e.currentTarget.checked })}
            />{" "}
            Review the plan before research
          </label>
          <p class="hint" id="review-plan-hint">
            The run stops after planning; on its page you approve, edit or reject the plan before anything is
            researched.
          </p>
        </div>
        <details class="strategies">
          <summary>About the strategies</summary>
          <dl>
            {strategies.map((s) => (
              <div key={s.name}>
                <dt>{s.name}</dt>
                <dd>{s.description}</dd>
              </div>
            ))}
          </dl>
        </details>
        <fieldset>
          <legend>Budget (empty = no limit)</legend>
          <div class="grid">
            {(
              [
                ["minutes", "Minutes"],
                ["toolCalls", "Tool calls"],
                ["tokens", "Tokens"],
                ["cost", "Cost (USD)"],
              ] as const
            ).map(([key, label]) => (
              <div key={key}>
                <label for={`b-${key}`}>{label}</label>
                <input
                  id={`b-${key}`}
                  type="number"
                  min="0"
                  step={key === "cost" ? "0.01" : key === "minutes" ? "0.5" : "1"}
                  inputMode="decimal"
                  value={v[key]}
                  onInput={(e) => set({ [key]: e.currentTarget.value })}
                />
              </div>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Report formats</legend>
          {FORMATS.map(([f, label]) => (
            <label key={f} class="check">
              <input
                type="checkbox"
                checked={v.formats.includes(f)}
                onChange={(e) =>
                  set({
                    formats: e.currentTarget.checked ? [...v.formats, f] : v.formats.filter((x) => x !== f),
                  })
                }
              />{" "}
              {label}
            </label>
          ))}
        </fieldset>
        <div class="row">
          <button
            type="button"
            class="secondary"
            disabled={v.question.trim().length < 3}
            onClick={async () => {
              setError("");
              const request = body();
              if (!request) return;
              try {
                setEstimate(
                  (await api<{ estimate: Estimate }>("/v1/estimate", { method: "POST", body: request }))
                    .estimate,
                );
              } catch (err) {
                setError((err as Error).message);
              }
            }}
          >
            Estimate
          </button>
          <button type="submit" disabled={busy}>
            Start research
          </button>
        </div>
        {estimate && (
          <p class="estimate" aria-live="polite">
            Estimate ({estimate.strategy}): {range(estimate.llmCalls)} model calls,{" "}
            {range(estimate.toolCalls)} tool calls, {range(estimate.tokens)} tokens,{" "}
            {estimate.costUsd ? `$${range(estimate.costUsd, (n) => n.toFixed(2))}` : "cost unknown"}
            {estimate.cappedBy.length ? ` (capped by ${estimate.cappedBy.join(", ")})` : ""}.
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}
