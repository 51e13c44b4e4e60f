/**
 * One run: the live view (phase, progress, plan DAG, gauges, evidence, warnings, Cancel, the
 * report section by section as it is written), driven by the SSE stream and resumed with
 * `Last-Event-ID`, and its report once written.
 */

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, type RunView } from "./api.ts";
import { dagInput, layoutDag, NODE_H, NODE_W } from "./dag.ts";
import { FollowUp } from "./follow-up.tsx";
import { parentOf } from "./follow-up-logic.ts";
import { budgetGauges } from "./gauges.ts";
import { PlanReviewPanel, PlanReviewSummary } from "./plan-review.tsx";
import { RefreshPanel } from "./refresh-panel.tsx";
import { Report } from "./report.tsx";
import { ReportProgress } from "./report-progress.tsx";
import { Link } from "./router.tsx";
import { applyEvent, emptyRunState, progressOf, type RunEvent, type RunState } from "./run-state.ts";
import { followRun } from "./sse.ts";
import { Timeline } from "./timeline.tsx";

function useRunStream(runId: string, generation: number) {
  const state = useRef<RunState>(emptyRunState());
  const [, setTick] = useState(0);
  const [connection, setConnection] = useState<"open" | "retrying" | "closed">("closed");
  useEffect(() => {
    const controller = new AbortController();
    let frame = 0;
    const redraw = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setTick((t) => t + 1);
      });
    };
    void followRun({
      runId,
      lastSeq: () => state.current.lastSeq,
      onEvent: (event: RunEvent) => {
        if (applyEvent(state.current, event)) redraw();
      },
      stillLive: async () => {
        const { run } = await api<{ run: RunView }>(`/v1/runs/${encodeURIComponent(runId)}`);
        // A run whose plan was just approved is taken up again (here, or by a worker) at once.
        return (
          run.status === "running" ||
          run.status === "queued" ||
          (run.status === "interrupted" && run.stopReason === APPROVED_STOP_REASON)
        );
      },
      onConnection: setConnection,
      signal: controller.signal,
    });
    return () => {
      controller.abort();
      cancelAnimationFrame(frame);
    };
  }, [runId, generation]);
  return { state: state.current, connection };
}

/** The stop reason of a run whose plan review was answered and that is about to go on. */
const APPROVED_STOP_REASON = "plan approved: resuming";

function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

function PlanDag(props: { state: RunState }) {
  const [selected, setSelected] = useState<string | null>(null);
  const layout = useMemo(() => layoutDag(dagInput(props.state.plan)), [props.state.plan]);
  if (layout.nodes.length === 0) return null;
  const node = props.state.plan.find((n) => n.id === selected);
  return (
    <section aria-labelledby="plan-h">
      <h2 id="plan-h">Plan</h2>
      <div class="dag-scroll">
        {/* biome-ignore lint/a11y/useSemanticElements: an SVG drawing groups its nodes with a role */}
        <svg
          class="dag"
          width={layout.width + 2}
          height={layout.height + 2}
          viewBox={`-1 -1 ${layout.width + 2} ${layout.height + 2}`}
          role="group"
          aria-label="Plan graph"
        >
          {layout.edges.map((e) => (
            <path
              key={`${e.from}-${e.to}`}
              class="edge"
              d={`M${e.x1},${e.y1} C${e.x1 + 24},${e.y1} ${e.x2 - 24},${e.y2} ${e.x2},${e.y2}`}
            />
          ))}
          {layout.nodes.map((n) => {
            const shown = n.label.length > 24 ? `${n.label.slice(0, 23)}…` : n.label;
            return (
              // biome-ignore lint/a11y/useSemanticElements: an SVG node cannot be a <button>
              <g
                key={n.id}
                class={`node ${n.status}${selected === n.id ? " selected" : ""}`}
                data-node={n.id}
                data-status={n.status}
                transform={`translate(${n.x},${n.y})`}
                tabIndex={0}
                role="button"
                onClick={() => setSelected(n.id === selected ? null : n.id)}
                onKeyDown={(e) => {
                  if (e.key === "Enter" || e.key === " ") {
                    e.preventDefault();
                    setSelected(n.id === selected ? null : n.id);
                  }
                }}
              >
                <rect width={NODE_W} height={NODE_H} rx="6" />
                {/* One text, so the button's name is its visible text: "T-1 · done Label". */}
                <text x="8" y="17">
                  <tspan class="nid">
                    {n.id} · {n.status}
                  </tspan>
                  <tspan x="8" y="34">
                    {` ${shown}`}
                  </tspan>
                </text>
              </g>
            );
          })}
        </svg>
      </div>
      {node && (
        <div class="node-detail" aria-live="polite">
          <h3>
            {node.id}: {node.title}
          </h3>
          <p>
            <strong>Status:</strong> {node.status}
          </p>
          {node.goal && (
            <p>
              <strong>Goal:</strong> {node.goal}
            </p>
          )}
          {node.summary && (
            <p>
              <strong>Findings:</strong> {node.summary}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

function hostOf(url: string | undefined): string {
  if (!url) return "";
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

export function RunPage(props: { runId: string }) {
  const [generation, setGeneration] = useState(0);
  const { state, connection } = useRunStream(props.runId, generation);
  const [error, setError] = useState("");
  const [run, setRun] = useState<RunView | null>(null);
  const running = state.status === "running";
  const now = useNow(running);
  useEffect(() => {
    api<{ run: RunView }>(`/v1/runs/${encodeURIComponent(props.runId)}`).then(
      (r) => setRun(r.run),
      (e) => setError(e.message),
    );
  }, [props.runId, state.status, state.reportFormats.length]);
  const gauges = budgetGauges(state, now);
  const progress = progressOf(state);
  const status = run && !running ? run.status : state.count > 0 ? state.status : (run?.status ?? "queued");
  // A finished run's report loads at once, while its events are still being replayed.
  const settled = !running || (run !== null && run.status !== "running" && run.status !== "queued");
  const canResume =
    (status === "interrupted" && run?.stopReason !== APPROVED_STOP_REASON) ||
    status === "cancelled" ||
    status === "failed";
  const [reportNumbers, setReportNumbers] = useState<ReadonlySet<number>>(new Set());
  const parent = run ? parentOf(run) : null;

  return (
    <article class="run" aria-labelledby="run-h">
      <h1 id="run-h">{state.query || run?.query || "Run"}</h1>
      <p class="meta">
        <span class={`badge ${status}`} data-testid="run-status">
          {status}
        </span>{" "}
        {state.strategy || run?.strategy} · run <code>{props.runId}</code>
        {connection === "retrying" && <span class="hint"> · reconnecting…</span>}
        {parent && (
          <span data-testid="follow-up-of">
            {" "}
            · follow-up of run <Link href={`/runs/${encodeURIComponent(parent)}`}>{parent}</Link>
          </span>
        )}
      </p>
      <div class="phase" aria-live="polite">
        Phase: <strong data-testid="phase">{state.phase}</strong>
        {state.phaseDetail && <span class="hint"> — {state.phaseDetail}</span>}
      </div>
      <progress max={1} value={progress} aria-label="Progress">
        {Math.round(progress * 100)}%
      </progress>
      <div class="row">
        {running && (
          <button
            type="button"
            class="danger"
            onClick={async () => {
              try {
                await api(`/v1/runs/${encodeURIComponent(props.runId)}/cancel`, { method: "POST" });
              } catch (e) {
                setError((e as Error).message);
              }
            }}
          >
            Cancel
          </button>
        )}
        {!running && canResume && (
          <button
            type="button"
            onClick={async () => {
              try {
                await api(`/v1/runs/${encodeURIComponent(props.runId)}/resume`, { method: "POST" });
                setGeneration((g) => g + 1);
              } catch (e) {
                setError((e as Error).message);
              }
            }}
          >
            Resume
          </button>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {state.stopReason && <p class="hint">Stop reason: {state.stopReason}</p>}

      {status === "awaiting-review" && (
        <PlanReviewPanel
          key={state.review?.requestedAt ?? "plan"}
          runId={props.runId}
          onAnswered={(answered) => {
            setRun(answered);
            // The run goes on (or ended, rejected): follow its events again from the last one seen.
            setGeneration((g) => g + 1);
          }}
        />
      )}
      {status !== "awaiting-review" && state.review?.answer && <PlanReviewSummary review={state.review} />}

      <section aria-labelledby="budget-h">
        <h2 id="budget-h">Budget</h2>
        <ul class="gauges">
          {gauges.map((g) => (
            <li key={g.key} class={`gauge ${g.level}`}>
              <span class="g-label">{g.label}</span>
              <meter
                min={0}
                max={1}
                value={g.limit === null ? 0 : g.ratio}
                high={0.8}
                optimum={0}
                aria-label={`${g.label} used`}
              />
              <span class="g-text">{g.text}</span>
            </li>
          ))}
        </ul>
      </section>

      {state.warnings.length > 0 && (
        <section aria-labelledby="warn-h" class="warnings">
          <h2 id="warn-h">Warnings</h2>
          <ul>
            {state.warnings.map((w) => (
              <li key={w.seq}>
                <code>{w.code}</code> {w.message}
              </li>
            ))}
          </ul>
        </section>
      )}

      <PlanDag state={state} />

      {state.steps.length > 0 && (
        <section aria-labelledby="steps-h">
          <h2 id="steps-h">Steps</h2>
          <ol class="steps">
            {state.steps.slice(-50).map((s) => (
              <li key={s.seq}>{s.label}</li>
            ))}
          </ol>
        </section>
      )}

      {running && <ReportProgress state={state} />}

      {run && settled && Object.keys(run.reports).length > 0 && (
        <Report runId={props.runId} reports={run.reports} onReferences={setReportNumbers} />
      )}
      {run && settled && run.status === "completed" && !parent && Object.keys(run.reports).length > 0 && (
        <RefreshPanel run={run} refreshable />
      )}
      {run && settled && run.status === "completed" && Object.keys(run.reports).length > 0 && (
        <FollowUp runId={props.runId} reportNumbers={reportNumbers} />
      )}

      <section aria-labelledby="evidence-h">
        <h2 id="evidence-h">
          Evidence <span class="hint">({state.evidence.length})</span>
        </h2>
        <ol class="evidence" data-testid="evidence">
          {state.evidence.slice(-200).map((e) => {
            const s = state.sources.get(e.sourceId);
            const host = hostOf(s?.url);
            return (
              <li key={e.id} data-evidence={e.id}>
                <div class="ev-head">
                  <strong>{s?.title ?? e.sourceId}</strong>
                  {host && <span class="hint"> · {host}</span>}
                  {s?.publishedAt && <span class="hint"> · {s.publishedAt.slice(0, 10)}</span>}
                  <span class="hint"> · {e.id}</span>
                </div>
                <blockquote>{e.text.length > 400 ? `${e.text.slice(0, 400)}…` : e.text}</blockquote>
              </li>
            );
          })}
        </ol>
      </section>

      <Timeline events={state.timeline} count={state.count} />
    </article>
  );
}
