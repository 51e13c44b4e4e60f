/**
 * `dossier fetch <url> [--goal "…"] [--json] [--max-bytes n]`: read one page. Without a goal
 * it prints the page's clean text (Markdown for HTML and PDF); with a goal the reader model
 * reads it and the verbatim-checked evidence is printed. Private-network addresses are
 * refused unless DOSSIER_ALLOW_PRIVATE_NETWORK=1. `--domains` and `--exclude-domains` (default:
 * the configured `sourceFilter`) refuse a URL or redirect outside them with SOURCE_FILTERED,
 * before it is requested.
 */

import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalJson, terminalLine, terminalText } from "../../core/terminal-text.ts";
import { LlmClient } from "../../llm/client.ts";
import { registryFromConfig } from "../../runtime/models.ts";
import { CRAWL_PROVIDER_POLICY, type CrawlResult, crawlPage } from "../../tools/crawl/index.ts";
import { type FetchPageOptions, fetchPageTool, type PageContent } from "../../tools/fetch/fetch-page.ts";
import { checkUrl } from "../../tools/fetch/ssrf-guard.ts";
import { ToolGateway } from "../../tools/gateway.ts";
import { checkSourceUrl, domainRules } from "../../tools/source-filter.ts";
import { toolFailure } from "../../tools/tool-failure.ts";
import type { CliIo } from "../io.ts";
import { openCliServices } from "../services.ts";
import { type GlobalFlags, loadCliConfig } from "../settings.ts";
import { commandEntry } from "./catalog.ts";

/** Flags of `dossier fetch`. */
export interface FetchFlags extends GlobalFlags {
  goal?: string;
  json?: boolean;
  maxBytes?: string;
  /** Allowed domains, comma-separated. */
  domains?: string;
  /** Excluded domains, comma-separated. */
  excludeDomains?: string;
}

/** Registers `dossier fetch`. */
export function registerFetchCommand(program: Command, io: CliIo): void {
  program
    .command("fetch")
    .description(commandEntry("fetch").description)
    .argument("<url>", "the http or https URL to read")
    .option("--goal <text>", "read the page for this goal with the reader model (DOSSIER_MODEL_READER)")
    .option("--json", "print JSON")
    .option("--max-bytes <n>", "size limit of the response body in bytes (default 10485760)")
    .option(
      "--domains <list>",
      "read only URLs on these domains and the hosts below them (comma list; default: the configured filter)",
    )
    .option("--exclude-domains <list>", "never read URLs on these domains (comma list)")
    .action(async (url: string, _opts: FetchFlags, cmd: Command) => {
      await runFetch(io, url, cmd.optsWithGlobals<FetchFlags>());
    });
}

/** Runs `dossier fetch` and prints the result; throws a DossierError on failure. */
export async function runFetch(io: CliIo, url: string, flags: FetchFlags): Promise<void> {
  const maxBytes = parseMaxBytes(flags.maxBytes);
  const goal = flags.goal?.trim();
  if (flags.goal !== undefined && !goal) throw new DossierError("INPUT_INVALID", "--goal must not be empty");
  // Refuse a bad scheme or a private literal address before anything is opened or created.
  const { config } = loadCliConfig(io, flags);
  checkUrl(url, { allowPrivateNetwork: config.allowPrivateNetwork });
  // A URL outside the source filter is refused before anything is opened or requested.
  const { sourceFilterOfFlags } = await import("./search.ts");
  const sourceFilter = domainRules(await sourceFilterOfFlags(flags, config.sourceFilter));
  checkSourceUrl(sourceFilter, url);

  const services = openCliServices(io, flags);
  try {
    const fetchOptions: Omit<FetchPageOptions, "signal"> = {
      allowPrivateNetwork: services.loaded.config.allowPrivateNetwork,
      ...(maxBytes === undefined ? {} : { maxBytes }),
      ...(sourceFilter ? { sourceFilter } : {}),
    };
    if (!goal) {
      const result = await fetchPageTool(services.gateway, url, fetchOptions);
      if (!result.ok) throw toolFailure(result.error);
      printPage(io, result.value, Boolean(flags.json));
      return;
    }
    const registry = registryFromConfig(services.loaded.config);
    registry.forRole("reader");
    const llm = new LlmClient({ registry });
    const gateway = new ToolGateway({
      cache: services.store.cache,
      providers: { reader: CRAWL_PROVIDER_POLICY },
    });
    const result = await crawlPage({ llm, gateway, url, goal, fetchOptions });
    if (!result.ok) throw toolFailure(result.error);
    printCrawl(io, result.value, Boolean(flags.json));
  } finally {
    services.close();
  }
}

function parseMaxBytes(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new DossierError(
      "INPUT_INVALID",
      `--max-bytes must be a positive whole number of bytes, got "${value}"`,
    );
  }
  return n;
}

function printPage(io: CliIo, page: PageContent, json: boolean): void {
  if (json) {
    const { title, url, finalUrl, redirects, contentType, declaredContentType, text, pages, bytes, reason } =
      page;
    const out = {
      title,
      url,
      finalUrl,
      redirects,
      contentType,
      declaredContentType,
      bytes,
      reason,
      text,
      pages,
    };
    io.out(`${terminalJson(out)}\n`);
    return;
  }
  if (page.text === "") {
    io.err(`dossier: ${terminalLine(`${page.finalUrl} has no text (${page.reason ?? "empty"})`)}\n`);
    return;
  }
  // Page text is untrusted: newlines and tabs kept, every other control character shown escaped.
  const text = terminalText(page.text);
  io.out(text.endsWith("\n") ? text : `${text}\n`);
}

function printCrawl(io: CliIo, result: CrawlResult, json: boolean): void {
  if (json) {
    io.out(`${terminalJson(result)}\n`);
    return;
  }
  const lines = [
    `${result.title} — ${result.finalUrl}${result.truncated ? " (long page: head and tail read)" : ""}`,
    "",
    `Rationale: ${result.rationale}`,
    "",
    result.evidence.length ? "Evidence:" : "Evidence: none",
    ...result.evidence.map((e, i) => `  [${i + 1}] ${e.replace(/\s*\n\s*/g, " ")}`),
    "",
    `Summary: ${result.summary || "—"}`,
  ];
  if (result.dropped)
    lines.push("", `(${result.dropped} excerpt(s) not found verbatim on the page were dropped)`);
  io.out(`${lines.map(terminalLine).join("\n")}\n`);
}
