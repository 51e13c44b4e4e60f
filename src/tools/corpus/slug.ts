/**
 * GitHub-style heading slugs (the anchors GitHub renders for Markdown headings): lower-case,
 * every character that is not a letter, mark, number, connector (`_`), hyphen or space
 * dropped, each space turned into `-`. Letters of every script are kept, so Chinese and
 * Japanese headings keep their characters. Repeats within a document get `-1`, `-2`, ….
 */

const DROP = /[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu;

/** The slug of one heading text, without de-duplication. */
export function headingSlug(text: string): string {
  return text.trim().toLowerCase().replace(DROP, "").replace(/ /g, "-");
}

/** Slugs for the headings of one document, de-duplicated as GitHub does. */
export class Slugger {
  readonly #seen = new Map<string, number>();

  /** The slug of the next heading; `section` when the heading has no sluggable character. */
  slug(text: string): string {
    const base = headingSlug(text) || "section";
    let result = base;
    while (this.#seen.has(result)) {
      const n = (this.#seen.get(base) ?? 0) + 1;
      this.#seen.set(base, n);
      result = `${base}-${n}`;
    }
    this.#seen.set(result, 0);
    return result;
  }
}
