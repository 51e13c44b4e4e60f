/** The queue and the workers above the runs list: depth, and each worker's load (refreshed). */

import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { Link } from "./router.tsx";
import { type WorkersView, workerRows, workersSummary } from "./workers.ts";

/** How often the panel (and the runs list) are read again (ms). */
export const REFRESH_MS = 5_000;

export function WorkersPanel({ tick }: { tick: number }) {
  const [view, setView] = useState<WorkersView | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api<WorkersView>("/v1/workers").then(
      (v) => {
        setView(v);
        setError("");
      },
      (e) => setError(e.message),
    );
  }, [tick]);
  if (error) return <p class="meta">Workers: {error}</p>;
  if (!view) return null;
  const rows = workerRows(view, Date.now());
  return (
    <section aria-labelledby="workers-h" class="workers">
      <h2 id="workers-h">Workers</h2>
      <p aria-live="polite">{workersSummary(view)}</p>
      {view.mode === "queue" && rows.length > 0 && (
        <div class="table-scroll">
          <table class="runs">
            <thead>
              <tr>
                <th scope="col">Worker</th>
                <th scope="col">Load</th>
                <th scope="col">Runs</th>
                <th scope="col">Heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.name}>
                  <td>{w.name}</td>
                  <td>
                    <meter min={0} max={1} value={w.ratio} aria-label={`${w.name} load`} /> {w.load}
                  </td>
                  <td>
                    {w.running.length === 0
                      ? "—"
                      : w.running.map((id) => (
                          <span key={id}>
                            <Link href={`/runs/${encodeURIComponent(id)}`}>{id}</Link>{" "}
                          </span>
                        ))}
                  </td>
                  <td>{w.seen}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
