/**
 * Types of `turndown-plugin-gfm`, which ships none: GitHub-flavoured Markdown rules (tables,
 * strikethrough, task lists) for Turndown.
 */

declare module "turndown-plugin-gfm" {
  /** Every GFM rule below. */
  export const gfm: import("turndown").Plugin;
  /** Tables as GFM pipe tables. */
  export const tables: import("turndown").Plugin;
  /** `<del>`, `<s>` and `<strike>` as `~~text~~`. */
  export const strikethrough: import("turndown").Plugin;
  /** Checkbox list items as `[x]` / `[ ]`. */
  export const taskListItems: import("turndown").Plugin;
  /** Highlighted code blocks (GitHub's markup) as fenced code. */
  export const highlightedCodeBlock: import("turndown").Plugin;
}
