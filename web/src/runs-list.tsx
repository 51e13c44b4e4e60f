/**
 * The runs list: status (queued, running, … interrupted), strategy, question, started, duration,
 * cost; Cancel a queued or running run, Resume an ended one. Above it the workers panel (queue
 * depth, workers and their load); both are read again every few seconds.
 */

import { useEffect, useState } from "preact/hooks";
import { api, type RunView } from "./api.ts";
import { parentOf } from "./follow-up-logic.ts";
import { Link, navigate } from "./router.tsx";
import { refreshOf, versionOf } from "./versions.ts";
import { REFRESH_MS, WorkersPanel } from "./workers-panel.tsx";

const STATUSES = [
  "queued",
  "running",
  "awaiting-review",
  "completed",
  "failed",
  "cancelled",
  "interrupted",
] as const;
const PAGE = 25;

/** Duration of a run as text. */
export function runDuration(run: Pick<RunView, "createdAt" | "finishedAt" | "updatedAt">): string {
  const start = Date.parse(run.createdAt);
  const end = Date.parse(run.finishedAt ?? run.updatedAt ?? "");
  if (!Number.isFinite(start) || !Number.isFinite(end)) return "—";
  const s = Math.max(0, Math.round((end - start) / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

export function RunsList() {
  const [runs, setRuns] = useState<RunView[] | null>(null);
  const [status, setStatus] = useState("");
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(0);
  const [error, setError] = useState("");
  const [tick, setTick] = useState(0);
  const load = () =>
    api<{ runs: RunView[] }>(`/v1/runs?limit=1000${status ? `&status=${status}` : ""}`).then(
      (r) => setRuns(r.runs),
      (e) => setError(e.message),
    );
  useEffect(() => {
    setPage(0);
  }, [status]);
  useEffect(() => {
    void load();
  }, [status, tick]);
  // Queued runs start and running runs end elsewhere (on workers): read the list again now and then.
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const q = search.trim().toLowerCase();
  const shown = (runs ?? []).filter((r) => !q || r.query.toLowerCase().includes(q) || r.id.includes(q));
  const pages = Math.max(1, Math.ceil(shown.length / PAGE));
  const slice = shown.slice(page * PAGE, page * PAGE + PAGE);

  return (
    <section aria-labelledby="runs-h">
      <h1 id="runs-h">Runs</h1>
      <WorkersPanel tick={tick} />
      <div class="row filters">
        <div>
          <label for="run-search">Search</label>
          <input
            id="run-search"
            type="search"
            value={search}
            onInput={(e) => {
              setSearch(e.currentTarget.value);
              setPage(0);
            }}
          />
        </div>
        <div>
          <label for="run-status">Status</label>
          <select id="run-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {runs && shown.length === 0 && <p>No runs yet.</p>}
      {slice.length > 0 && (
        <div class="table-scroll">
          <table class="runs">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Question</th>
                <th scope="col">Strategy</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Cost</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {slice.map((r) => (
                <tr key={r.id} data-run={r.id}>
                  <td>
                    <span class={`badge ${r.status}`}>{r.status}</span>
                  </td>
                  <td>
                    <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.query}</Link>
                    {parentOf(r) && <span class="hint"> · follow-up of {parentOf(r)}</span>}
                    {refreshOf(r) && (
                      <span class="hint">
                        {" "}
                        · version {versionOf(r)}, refresh of {refreshOf(r)}
                      </span>
                    )}
                  </td>
                  <td>{r.strategy}</td>
                  <td>
                    <time dateTime={r.createdAt}>{new Date(r.createdAt).toLocaleString()}</time>
                  </td>
                  <td>{runDuration(r)}</td>
                  <td>
                    {typeof r.usage?.costUsd === "number" ? `$${r.usage.costUsd.toFixed(3)}` : "unknown"}
                  </td>
                  <td>
                    {(r.status === "queued" || r.status === "running") && (
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Cancel run ${r.id}`}
                        onClick={async () => {
                          try {
                            await api(`/v1/runs/${encodeURIComponent(r.id)}/cancel`, { method: "POST" });
                            setTick((t) => t + 1);
                          } catch (e) {
                            setError((e as Error).message);
                          }
                        }}
                      >
                        Cancel
                      </button>
                    )}
                    {(r.status === "interrupted" || r.status === "cancelled" || r.status === "failed") && (
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Resume run ${r.id}`}
                        onClick={async () => {
                          try {
                            await api(`/v1/runs/${encodeURIComponent(r.id)}/resume`, { method: "POST" });
                            navigate(`/runs/${encodeURIComponent(r.id)}`);
                          } catch (e) {
                            setError((e as Error).message);
                          }
                        }}
                      >
                        Resume
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav class="row" aria-label="Pages">
          <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page + 1} of {pages}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={page + 1 >= pages}
            onClick={() => setPage(page + 1)}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
