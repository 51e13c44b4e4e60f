/**
 * The academic branch of `dossier search --provider arxiv|openalex`: one search through the
 * `academic_search` tool (and so the ToolGateway, with arXiv's one-request-every-three-seconds
 * policy). Prints a numbered list with authors, or with `--json` an array of `{ title, url,
 * snippet, publishedAt?, authors, doi?, pdfUrl? }` (the snippet is the abstract).
 */

import { terminalJson, terminalLine } from "../../core/terminal-text.ts";
import { academicBaseUrlsFromEnv, createAcademicProviders } from "../../tools/search/academic-providers.ts";
import { type AcademicResult, plainPaper } from "../../tools/search/academic-result.ts";
import { academicSearch } from "../../tools/search/academic-search.ts";
import { toolFailure } from "../../tools/tool-failure.ts";
import type { SearchRequest } from "../../tools/types.ts";
import type { CliIo } from "../io.ts";
import { openCliServices } from "../services.ts";
import { type GlobalFlags, loadCliConfig } from "../settings.ts";

/** The numbered, human-readable list of papers. */
export function formatPapers(results: readonly AcademicResult[]): string {
  if (results.length === 0) return "no results\n";
  const blocks = results.map((r, i) => {
    const lines = [`${i + 1}. ${terminalLine(r.title)}`, `   ${terminalLine(r.url)}`];
    if (r.authors.length > 0) lines.push(`   ${terminalLine(r.authors.join(", "))}`);
    if (r.publishedAt) lines.push(`   published ${terminalLine(r.publishedAt)}`);
    if (r.snippet) lines.push(`   ${terminalLine(r.snippet)}`);
    return lines.join("\n");
  });
  return `${blocks.join("\n\n")}\n`;
}

/** Papers as printed by `--json`: only the documented fields. */
export function papersJson(results: readonly AcademicResult[]): string {
  return `${terminalJson(results.map(plainPaper))}\n`;
}

/** Runs an academic search with one provider. Throws a DossierError on a failed search. */
export async function runAcademicSearch(
  io: CliIo,
  provider: string,
  request: Partial<SearchRequest> & { query: string },
  flags: GlobalFlags & { json?: boolean },
): Promise<void> {
  const { config } = loadCliConfig(io, flags);
  const providers = createAcademicProviders(config, [provider], {
    providerBaseUrls: academicBaseUrlsFromEnv(io.env),
  });
  const services = openCliServices(io, flags);
  let outcome: Awaited<ReturnType<typeof academicSearch>>;
  try {
    outcome = await academicSearch(request, { gateway: services.gateway, providers });
  } finally {
    services.close();
  }
  if (!outcome.ok) {
    throw toolFailure(outcome.error, { provider: outcome.provider });
  }
  io.out(flags.json ? papersJson(outcome.value) : formatPapers(outcome.value));
}
