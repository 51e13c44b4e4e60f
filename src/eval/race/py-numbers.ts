/**
 * Number handling that matches the benchmark's Python code exactly: `f"{x:.4f}"` and
 * `round(x, n)` (correctly rounded, ties to even — JavaScript's `toFixed` breaks exact ties
 * away from zero), and `float(value)` on a judge's score field.
 */

/**
 * Formats `x` with `digits` decimals as Python's `format(x, ".{digits}f")` does: the exact
 * binary value is rounded, an exact tie goes to the even digit.
 */
export function formatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  const rounded = x.toFixed(digits);
  // A tie is exact only when the binary value ends in …5000… at this position; 30 extra
  // digits separate any double of ordinary magnitude from the nearest decimal tie point.
  const exact = x.toFixed(Math.min(100, digits + 30));
  const cut = exact.length - 30;
  if (!/^50*$/.test(exact.slice(cut))) return rounded;
  const truncated = exact.slice(0, cut).replace(/\.$/, "");
  const lastDigit = Number(truncated.at(-1));
  return lastDigit % 2 === 0 ? truncated : rounded;
}

/** Python's `round(x, digits)` for a float. */
export function roundHalfEven(x: number, digits: number): number {
  return Number(formatFixed(x, digits));
}

const PY_FLOAT = /^[+-]?(?:(?:\d+(?:_\d+)*)?\.\d+(?:_\d+)*|\d+(?:_\d+)*\.?)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
const PY_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * Python's `float(value)` for a JSON value: `null` stays `null` (the benchmark checks `is None`
 * first); numbers and booleans convert; strings convert when Python would accept them;
 * anything else is `undefined` (Python raises, and the benchmark skips the item).
 */
export function pyFloat(value: unknown): number | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (PY_FLOAT.test(text)) return Number(text.replaceAll("_", ""));
  const special = PY_SPECIAL.exec(text);
  if (!special) return undefined;
  if (special[2]!.toLowerCase() === "nan") return Number.NaN;
  return special[1] === "-" ? -Infinity : Infinity;
}
