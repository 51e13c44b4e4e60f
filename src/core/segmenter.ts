/**
 * Shared `Intl.Segmenter`s, each built on first use: building one loads ICU break-iterator data
 * (tens of milliseconds), which importing a module should not cost.
 */

const built = new Map<string, Intl.Segmenter>();

/** The segmenter of `granularity` for `locale` (default: the runtime's), built once. */
export function segmenter(granularity: "grapheme" | "word" | "sentence", locale?: string): Intl.Segmenter {
  const key = `${locale ?? ""}:${granularity}`;
  let found = built.get(key);
  if (!found) {
    found = new Intl.Segmenter(locale, { granularity });
    built.set(key, found);
  }
  return found;
}
