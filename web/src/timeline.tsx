/**
 * A run's trace as a filterable, virtualized event timeline (stays quick at 10,000 events);
 * a row selects its event, whose detail (a re-plan's before and after) shows below the list.
 */

import { useMemo, useState } from "preact/hooks";
import { EventDetail } from "./event-detail.tsx";
import type { RunEvent } from "./run-state.ts";
import { eventSummary, filterEvents, visibleWindow } from "./timeline-logic.ts";

const ROW = 26;
const HEIGHT = 320;

export function Timeline(props: { events: readonly RunEvent[]; count: number }) {
  const [type, setType] = useState("");
  const [text, setText] = useState("");
  const [top, setTop] = useState(0);
  const [selected, setSelected] = useState<number | null>(null);
  const types = useMemo(() => [...new Set(props.events.map((e) => e.type))].sort(), [props.count]);
  const shown = useMemo(() => filterEvents(props.events, type, text), [props.count, type, text]);
  const { start, end } = visibleWindow(top, HEIGHT, ROW, shown.length);
  const detail = selected === null ? undefined : props.events.find((e) => e.seq === selected);
  return (
    <details class="timeline">
      <summary>
        Events <span class="hint">({props.count})</span>
      </summary>
      <div class="row">
        <div>
          <label for="ev-type">Event type</label>
          <select id="ev-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="ev-text">Filter</label>
          <input id="ev-text" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
      </div>
      {/* The browser lets the keyboard focus and scroll this box. */}
      <div class="ev-scroll" onScroll={(e) => setTop(e.currentTarget.scrollTop)}>
        <ol
          data-testid="timeline"
          aria-label={`Events, ${shown.length} shown`}
          style={{ height: `${shown.length * ROW}px` }}
        >
          {shown.slice(start, end).map((e, i) => (
            <li
              key={e.seq}
              data-seq={e.seq}
              class={selected === e.seq ? "selected" : undefined}
              style={{ top: `${(start + i) * ROW}px` }}
            >
              <button
                type="button"
                class="ev-row"
                aria-pressed={selected === e.seq}
                onClick={() => setSelected(selected === e.seq ? null : e.seq)}
              >
                <code>{e.seq}</code> <strong>{e.type}</strong>
                {e.scope ? <span class="hint"> · {e.scope}</span> : null} {eventSummary(e)}
              </button>
            </li>
          ))}
        </ol>
      </div>
      {detail && <EventDetail event={detail} events={props.events} />}
    </details>
  );
}
