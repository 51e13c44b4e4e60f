/**
 * `dossier index <dir> [--name <corpus>] [--hybrid] [--max-file-mb <n>] [--json]`: ingest a
 * folder of Markdown, text, HTML and PDF files into the corpus `<home>/corpus/<name>.db`,
 * incrementally. A progress line is redrawn on stderr when stdout is a terminal; skipped
 * files are listed on stderr; the summary is one line on stdout (`--json`: one JSON object
 * with the skipped files and their reasons). `--hybrid` also embeds the chunks (see
 * DOSSIER_EMBEDDING_URL / DOSSIER_EMBEDDING_MODEL); without it nothing touches the network.
 */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { DossierError } from "../../core/errors.ts";
import { terminalLine } from "../../core/terminal-text.ts";
import {
  ANALYZER_NAMES,
  type AnalyzerName,
  CorpusIndex,
  corpusEmbeddingSettings,
  corpusPath,
  createEmbeddingClient,
  DEFAULT_ANALYZER,
  DEFAULT_CORPUS,
  DEFAULT_MAX_FILE_BYTES,
  type EmbeddingClient,
  formatIndexSummary,
  gatewayEmbeddings,
  type IndexProgress,
  indexDirectory,
  isAnalyzerName,
} from "../../tools/corpus/index.ts";
import type { CliIo } from "../io.ts";
import { openCliServices } from "../services.ts";
import { type GlobalFlags, homeDir, loadCliConfig } from "../settings.ts";
import { commandEntry } from "./catalog.ts";

/** Flags of `dossier index`. */
export interface IndexFlags extends GlobalFlags {
  name?: string;
  hybrid?: boolean;
  maxFileMb?: string;
  analyzer?: string;
  json?: boolean;
}

/** `--analyzer` checked before anything is read or written. */
function analyzerFlag(value: string | undefined): AnalyzerName | undefined {
  if (value === undefined) return undefined;
  if (isAnalyzerName(value)) return value;
  throw new DossierError(
    "INPUT_INVALID",
    `--analyzer must be one of ${ANALYZER_NAMES.join(", ")}, got "${value}"`,
    { details: { analyzer: value } },
  );
}

/** `--max-file-mb` in bytes (MB = 2^20 bytes). */
function maxFileBytes(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_FILE_BYTES;
  const mb = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(mb > 0)) {
    throw new DossierError("INPUT_INVALID", `--max-file-mb must be a positive number (got "${value}")`);
  }
  return Math.floor(mb * 1024 * 1024);
}

/** A progress renderer redrawing one line on stderr (at most every 100 ms). */
function progressLine(io: CliIo): { update: (p: IndexProgress) => void; clear: () => void } {
  let last = 0;
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      if (now - last < 100 && p.done < p.total) return;
      last = now;
      const width = 24;
      const filled = p.total ? Math.round((p.done / p.total) * width) : width;
      const bar = `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
      const label = p.phase === "index" ? "files" : "chunks embedded";
      const path = p.path ? `  ${p.path.length > 50 ? `…${p.path.slice(-49)}` : p.path}` : "";
      io.err(`\r\x1b[K${bar} ${p.done}/${p.total} ${label}${path}`);
      drawn = true;
    },
    clear() {
      if (drawn) io.err("\r\x1b[K");
      drawn = false;
    },
  };
}

/** Runs `dossier index`. */
export async function runIndex(io: CliIo, dir: string, flags: IndexFlags): Promise<void> {
  const loaded = loadCliConfig(io, flags);
  const name = flags.name ?? DEFAULT_CORPUS;
  const path = corpusPath(homeDir(io, loaded), name);
  const limit = maxFileBytes(flags.maxFileMb);
  const analyzer = analyzerFlag(flags.analyzer);
  const root = resolve(io.cwd, dir);
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new DossierError("INPUT_INVALID", `${dir} is not a folder`, { details: { path: root } });
  }
  const index = CorpusIndex.open({ path });
  let services: ReturnType<typeof openCliServices> | undefined;
  const progress = io.isTty && !flags.json ? progressLine(io) : undefined;
  try {
    let embeddings: EmbeddingClient | undefined;
    if (flags.hybrid) {
      services = openCliServices(io, flags);
      const settings = corpusEmbeddingSettings(index, io.env, loaded.config);
      embeddings = gatewayEmbeddings(services.gateway, createEmbeddingClient(settings));
      index.setMeta("embedding_url", settings.baseUrl);
    }
    const summary = await indexDirectory({
      root,
      index,
      corpus: name,
      maxFileBytes: limit,
      ...(analyzer ? { analyzer } : {}),
      ...(embeddings ? { embeddings } : {}),
      ...(progress ? { onProgress: progress.update } : {}),
    });
    progress?.clear();
    if (flags.json) {
      io.out(`${JSON.stringify(summary)}\n`);
      return;
    }
    for (const s of summary.skipped) {
      io.err(
        `skipped ${terminalLine(s.path)}: ${s.reason}${s.detail ? ` (${terminalLine(s.detail)})` : ""}\n`,
      );
    }
    io.out(`${formatIndexSummary(summary)}\n`);
  } finally {
    progress?.clear();
    index.close();
    services?.close();
  }
}

/** Registers `dossier index`. */
export function registerIndexCommand(program: Command, io: CliIo): void {
  program
    .command("index")
    .description(commandEntry("index").description)
    .argument("<dir>", "the folder to index")
    .option("--name <corpus>", `corpus name (default "${DEFAULT_CORPUS}"); stored in <home>/corpus/<name>.db`)
    .option(
      "--hybrid",
      "also embed chunks for hybrid search (DOSSIER_EMBEDDING_URL, DOSSIER_EMBEDDING_MODEL, DOSSIER_EMBEDDING_API_KEY)",
    )
    .option("--max-file-mb <n>", "skip files larger than this many MB (default 50)")
    .option(
      "--analyzer <name>",
      `how text becomes search terms: ${ANALYZER_NAMES.join(" or ")} (a new corpus: ${DEFAULT_ANALYZER}; kept from the last run otherwise; a change re-indexes every file)`,
    )
    .option("--json", "print the summary as one JSON object")
    .action(async (dir: string, _opts: unknown, cmd: Command) => {
      await runIndex(io, dir, cmd.optsWithGlobals<IndexFlags>());
    });
}
