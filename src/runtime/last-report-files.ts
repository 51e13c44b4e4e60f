/**
 * The files a finished run's report was written to, as its last report-ready event names them,
 * and reading them back without throwing (a file moved or deleted since is simply absent).
 */

import { readFileSync } from "node:fs";
import type { DossierEvent } from "../core/events.ts";

/** The JSON bundle and Markdown rendering named by the run's last report-ready event, if any. */
export interface ReportFiles {
  json: string | undefined;
  md: string | undefined;
}

/** The report files of the last report-ready event among `events`, or undefined when there is none. */
export function lastReportFiles(events: readonly DossierEvent[]): ReportFiles | undefined {
  const ready = events.filter((e) => e.type === "report-ready").at(-1);
  if (ready?.type !== "report-ready") return undefined;
  const paths = ready.paths ?? [];
  return { json: paths.find((p) => p.endsWith(".json")), md: paths.find((p) => p.endsWith(".md")) };
}

/** The text of `path`, or undefined when it cannot be read. */
export function readTextOrNothing(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
