/**
 * The detail of one trace event: a re-plan as the plan before and after (nodes added, pruned
 * and changed field by field), any other event as its recorded fields. Everything is text.
 */

import "./trace.css";
import {
  changeSummary,
  isReplan,
  nodeMark,
  type PlanChange,
  type PlanNodeLine,
  planChange,
} from "./plan-diff.ts";
import type { RunEvent } from "./run-state.ts";

const MARK_TEXT = { added: "new", pruned: "pruned", changed: "changed", kept: "" } as const;
const MAX_JSON = 20_000;

function NodeLabel(props: { node: PlanNodeLine }) {
  const n = props.node;
  return (
    <>
      <code>{n.id}</code> <span class="hint">{n.type}</span> {n.title}
    </>
  );
}

function PlanList(props: {
  title: string;
  nodes: PlanNodeLine[];
  change: PlanChange;
  side: "before" | "after";
}) {
  return (
    <div>
      <h4>{props.title}</h4>
      <ol class="plan-list">
        {props.nodes.map((n) => {
          const mark = nodeMark(props.change, n.id);
          // Before the re-plan an added node did not exist and a pruned one was still live.
          const shown = props.side === "before" && mark !== "pruned" && mark !== "changed" ? "kept" : mark;
          return (
            <li key={n.id} class={`pl-${shown}`} data-node={n.id} data-mark={shown}>
              <NodeLabel node={n} />{" "}
              <span class="hint">
                · {props.side === "before" && mark === "pruned" ? "pending" : n.status}
              </span>
              {MARK_TEXT[shown] && <span class={`mark ${shown}`}>{MARK_TEXT[shown]}</span>}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/** A re-plan: what it added, pruned and changed, and the two plans side by side. */
export function ReplanView(props: { event: RunEvent; events: readonly RunEvent[] }) {
  const c = planChange(props.events, props.event);
  return (
    <div class="replan" data-testid="replan">
      <h3>Re-plan at iteration {c.iteration}</h3>
      <p class="hint">{changeSummary(c)}</p>
      {c.added.length > 0 && (
        <>
          <h4>Added</h4>
          <ul>
            {c.added.map((n) => (
              <li key={n.id}>
                <NodeLabel node={n} /> — {n.goal}
                {n.deps.length > 0 && <span class="hint"> (after {n.deps.join(", ")})</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {c.pruned.length > 0 && (
        <>
          <h4>Pruned</h4>
          <ul>
            {c.pruned.map((n) => (
              <li key={n.id}>
                <NodeLabel node={n} />
              </li>
            ))}
          </ul>
        </>
      )}
      {c.changed.length > 0 && (
        <>
          <h4>Changed</h4>
          <ul>
            {c.changed.map(({ node, fields }) => (
              <li key={node.id}>
                <NodeLabel node={node} />
                {fields.length > 0 && (
                  <ul>
                    {fields.map((f) => (
                      <li key={f.field}>
                        {f.field}: <del>{f.before}</del> → <ins>{f.after}</ins>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {c.ignored.length > 0 && (
        <p class="hint">
          Finished nodes the planner tried to change, kept as they were: {c.ignored.join(", ")}
        </p>
      )}
      <div class="plan-cols">
        {c.before ? (
          <PlanList title="Before" nodes={c.before} change={c} side="before" />
        ) : (
          <p class="hint">The plan before is no longer among the loaded events.</p>
        )}
        <PlanList title="After" nodes={c.after} change={c} side="after" />
      </div>
    </div>
  );
}

/** The detail panel of the selected event. */
export function EventDetail(props: { event: RunEvent; events: readonly RunEvent[] }) {
  const e = props.event;
  const json = JSON.stringify(e, null, 2);
  return (
    <section class="event-detail" aria-label={`Event ${e.seq} detail`}>
      {isReplan(e) ? (
        <ReplanView event={e} events={props.events} />
      ) : (
        <pre>{json.length > MAX_JSON ? `${json.slice(0, MAX_JSON)}\n…` : json}</pre>
      )}
    </section>
  );
}
