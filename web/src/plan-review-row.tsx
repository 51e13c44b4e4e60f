/**
 * One row of the plan under review: its title and description fields, the strategy's extra data
 * as text, and its move and remove buttons, each labelled with the row's name.
 */

import { type DraftSub, extrasLines, MAX_DESCRIPTION, MAX_TITLE, type RowAt } from "./plan-draft.ts";

/** "subtasks" → "Subtask". */
export function singular(kind: string): string {
  const one = kind.endsWith("s") ? kind.slice(0, -1) : kind;
  return one ? one[0]!.toUpperCase() + one.slice(1) : "Item";
}

const rowName = (noun: string, at: RowAt) =>
  at.child === undefined ? `${noun} ${at.item + 1}` : `${noun} ${at.item + 1}.${at.child + 1}`;

/** One editable row: its text, its description, the strategy's data, and its buttons. */
export function Row(props: {
  row: DraftSub;
  at: RowAt;
  noun: string;
  count: number;
  onEdit(patch: Partial<Pick<DraftSub, "title" | "description">>): void;
  onMove(delta: -1 | 1): void;
  onRemove(): void;
}) {
  const { row, at, noun } = props;
  const name = rowName(noun, at);
  const index = at.child ?? at.item;
  const id = `pr-${row.key}`;
  const extras = extrasLines(row.extras);
  return (
    <div class="pr-row">
      <label for={`${id}-title`}>{name}</label>
      <input
        id={`${id}-title`}
        type="text"
        value={row.title}
        maxLength={MAX_TITLE}
        required
        onInput={(e) => props.onEdit({ title: e.currentTarget.value })}
      />
      <label for={`${id}-desc`} class="pr-desc-label">
        {name} description <span class="hint">(optional)</span>
      </label>
      <textarea
        id={`${id}-desc`}
        rows={2}
        value={row.description}
        maxLength={MAX_DESCRIPTION}
        onInput={(e) => props.onEdit({ description: e.currentTarget.value })}
      />
      {extras.length > 0 && (
        <ul class="pr-extras hint">
          {extras.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {/* biome-ignore lint/a11y/useSemanticElements: a group of buttons, not a form section */}
      <div class="pr-actions" role="group" aria-label={`${name} actions`}>
        <button
          type="button"
          class="secondary"
          id={`${id}-up`}
          aria-label={`Move ${name.toLowerCase()} up`}
          disabled={index === 0}
          onClick={() => props.onMove(-1)}
        >
          Up
        </button>
        <button
          type="button"
          class="secondary"
          id={`${id}-down`}
          aria-label={`Move ${name.toLowerCase()} down`}
          disabled={index === props.count - 1}
          onClick={() => props.onMove(1)}
        >
          Down
        </button>
        <button
          type="button"
          class="secondary"
          aria-label={`Remove ${name.toLowerCase()}`}
          onClick={props.onRemove}
        >
          Remove
        </button>
      </div>
    </div>
  );
}
