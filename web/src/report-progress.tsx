/**
 * The report as it is being written: the outline's sections with their status (pending,
 * writing, written with its citations) and, when the strategy records drafts, each section's
 * draft text. Model text is shown as text; the checked report replaces this view at the end.
 */

import "./sections.css";
import type { RunState } from "./run-state.ts";
import { sectionViews } from "./sections.ts";

/** The live section list; nothing before the report is being written. */
export function ReportProgress(props: { state: RunState }) {
  const { state } = props;
  const views = sectionViews(state.outline, state.writing, state.sections);
  const started = views.some((v) => v.status !== "pending") || state.phase === "writing";
  if (!started || views.length === 0) return null;
  const written = views.filter((v) => v.status === "written").length;
  return (
    <section aria-labelledby="sections-h" data-testid="report-progress">
      <h2 id="sections-h">
        Report, section by section{" "}
        <span class="hint">
          ({written} of {views.length} written)
        </span>
      </h2>
      <ol class="sections">
        {views.map((v) => (
          <li
            key={v.id}
            data-section={v.id}
            data-status={v.status}
            style={{ marginLeft: `${(v.depth - 1) * 1.2}em` }}
          >
            <span class={`sec-status ${v.status}`}>{v.status}</span> <span class="hint">{v.id}</span>{" "}
            {v.title}
            {v.status === "written" && v.citations !== undefined && (
              <span class="hint">
                {" "}
                · {v.citations} citation{v.citations === 1 ? "" : "s"}
                {v.chars ? ` · ${v.chars.toLocaleString("en")} characters` : ""}
              </span>
            )}
            {v.text && (
              <details class="draft">
                <summary>Draft text</summary>
                <p>{v.text}</p>
              </details>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
