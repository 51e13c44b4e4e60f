/**
 * Plain-text tables for evaluation summaries, and number formatting that prints unknown values
 * as "—" (never as 0).
 */

/** Formats rows under a header: columns padded to their widest cell, numbers right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ""))));
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d.,%$]+$|^—$/.test(r[i] ?? "")),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? padStart(cell, widths[i]!) : padEnd(cell, widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")}\n`;
}

/** Display width: CJK and other wide characters take two columns. */
export function width(text: string): number {
  let n = 0;
  for (const c of text)
    n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(
      c,
    )
      ? 2
      : 1;
  return n;
}

function padEnd(text: string, w: number): string {
  return text + " ".repeat(Math.max(0, w - width(text)));
}

function padStart(text: string, w: number): string {
  return " ".repeat(Math.max(0, w - width(text))) + text;
}

/** A number with `digits` decimals, or "—" when unknown. */
export function fmt(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "—" : value.toFixed(digits);
}

/** A rate as a percentage with one decimal, or "—". */
export function pct(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(1)}%`;
}

/** An integer count, or "—". */
export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : String(value);
}
