/** The chosen strategy's own options as labelled fields of the new-research form. */

import type { StrategyOption } from "./api.ts";
import { optionHint, optionLabel } from "./strategy-options.ts";

/** Props of {@link StrategyOptionsFields}. */
export interface StrategyOptionsFieldsProps {
  strategy: string;
  options: readonly StrategyOption[];
  /** The fields' text by option name ("" or absent: the strategy's default). */
  values: Readonly<Record<string, string>>;
  onChange(values: Record<string, string>): void;
}

/** A fieldset with one field per option; nothing when the strategy has none. */
export function StrategyOptionsFields(props: StrategyOptionsFieldsProps) {
  if (props.options.length === 0) return null;
  const set = (name: string, value: string) => props.onChange({ ...props.values, [name]: value });
  return (
    <fieldset data-testid="strategy-options">
      <legend>Options of {props.strategy} (empty = default)</legend>
      <div class="grid">
        {props.options.map((o) => {
          const id = `opt-${o.name}`;
          const value = props.values[o.name] ?? "";
          const hint = optionHint(o);
          const common = {
            id,
            name: o.name,
            value,
            ...(hint ? { "aria-describedby": `${id}-hint` } : {}),
          };
          const choices = o.enum ?? (o.type === "boolean" ? ["true", "false"] : null);
          return (
            <div key={o.name}>
              <label for={id}>{optionLabel(o.name)}</label>
              {choices ? (
                <select {...common} onChange={(e) => set(o.name, e.currentTarget.value)}>
                  <option value="">Default{o.default !== undefined ? ` (${String(o.default)})` : ""}</option>
                  {choices.map((c) => (
                    <option key={c} value={c}>
                      {o.type === "boolean" ? (c === "true" ? "Yes" : "No") : c}
                    </option>
                  ))}
                </select>
              ) : o.type === "json" ? (
                <textarea
                  {...common}
                  rows={2}
                  spellcheck={false}
                  placeholder="JSON"
                  onInput={(e) => set(o.name, e.currentTarget.value)}
                />
              ) : o.type === "string" ? (
                <input
                  {...common}
                  type="text"
                  placeholder={o.default !== undefined ? String(o.default) : ""}
                  onInput={(e) => set(o.name, e.currentTarget.value)}
                />
              ) : (
                <input
                  {...common}
                  type="number"
                  min={o.minimum}
                  max={o.maximum}
                  step={o.type === "integer" ? "1" : "any"}
                  inputMode={o.type === "integer" ? "numeric" : "decimal"}
                  placeholder={o.default !== undefined ? String(o.default) : ""}
                  onInput={(e) => set(o.name, e.currentTarget.value)}
                />
              )}
              {hint && (
                <p class="hint" id={`${id}-hint`}>
                  {hint}
                </p>
              )}
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
