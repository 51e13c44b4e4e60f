/**
 * The citations of a short answer and the passages behind them: what `ask` reads from a run's
 * events, apart from the rest of an smtl run's end (answer.ts) so reading it loads no report
 * assembly.
 */

import { type Evidence, type Source, sourceLocator } from "../../core/source.ts";

/** A numbered citation of the answer. */
export interface AskCitation {
  number: number;
  title: string;
  /** URL, or path with its anchor. */
  locator: string;
  /** The evidence ids cited under this number. */
  evidence: string[];
}

/** A passage supporting the answer, as it was retrieved in the run. */
export interface AskEvidence {
  id: string;
  /** The citation number it is cited under. */
  citation: number;
  text: string;
  title: string;
  locator: string;
  /** The tool and call that retrieved it. */
  retrievedBy: { tool: string; callId: string };
  query?: string;
}

/** The passages behind each numbered citation, with their source's title and locator. */
export function citedPassages(
  citations: readonly AskCitation[],
  evidenceOf: (id: string) => Evidence | undefined,
  sourceOf: (id: string) => Source | undefined,
): AskEvidence[] {
  return citations.flatMap((c) =>
    c.evidence.flatMap((id) => {
      const e = evidenceOf(id);
      const source = e ? sourceOf(e.sourceId) : undefined;
      if (!e || !source) return [];
      return [
        {
          id,
          citation: c.number,
          text: e.text,
          title: source.title,
          locator: sourceLocator(source),
          retrievedBy: e.retrievedBy,
          ...(e.query ? { query: e.query } : {}),
        },
      ];
    }),
  );
}
