/**
 * The offline report's section titles: named from the documents' own headings — one that names
 * the facet, else the most common one of the passages picked — read as text (no Markdown), never
 * a heading that is a code label (a signature, a path, an API entry: `warpReward(run, {…})
 * (rewards/warp.ts)`), and each title used once in a report.
 */

import { readableText } from "../../core/markdown-text.ts";

/** True when a heading reads as code rather than as a title. */
export function looksLikeCode(heading: string): boolean {
  return (
    /[{}|]|=>|::|\w\(|`|\.(?:ts|js|py|md|json|ya?ml|tsx|jsx)\b|(?:^|\s)[\w.-]+\/[\w./-]+|(?:^|\s)--?[a-z]/.test(
      heading,
    ) || heading.replace(/[\p{L}\p{N}\s]/gu, "").length > heading.length * 0.25
  );
}

/** The title of a facet's section from its passages' headings (see the module comment). */
export function facetTitle(facet: string, headingPaths: readonly (string | undefined)[]): string {
  const headings = headingPaths
    .map((p) => p?.split(" > ").at(-1)?.trim() ?? "")
    .filter((h) => h && !looksLikeCode(h))
    .map(readableText);
  const naming = headings.find((h) => h.toLowerCase().includes(facet.toLowerCase()));
  if (naming) return naming;
  const counts = new Map<string, number>();
  for (const h of headings) counts.set(h, (counts.get(h) ?? 0) + 1);
  const common = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  if (common && common[0].split(/\s+/).length >= 2) return common[0];
  return facet.charAt(0).toUpperCase() + facet.slice(1);
}

/** `title`, or — when the report has it already — the facet's own name, else null (merge). */
export function uniqueTitle(title: string, facet: string, used: ReadonlySet<string>): string | null {
  if (!used.has(title.toLowerCase())) return title;
  const own = facet.charAt(0).toUpperCase() + facet.slice(1);
  return used.has(own.toLowerCase()) ? null : own;
}
