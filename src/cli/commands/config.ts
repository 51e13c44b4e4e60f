/**
 * `dossier config`: the effective configuration with secrets masked, which provider keys are
 * present, and where data lives.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { parseModelSpec, ROLES } from "../../llm/model-spec.ts";
import { priceFor } from "../../llm/prices.ts";
import { maskedConfig, maskSecret } from "../../runtime/config.ts";
import { CONFIG_FILE, ENV_SETTINGS, type LoadedConfig } from "../../runtime/config-load.ts";
import { DATABASE_FILE } from "../../store/sqlite-store.ts";
import type { CliIo } from "../io.ts";
import { type GlobalFlags, homeDir, loadCliConfig } from "../settings.ts";
import { VERSION } from "../version.ts";
import { commandEntry } from "./catalog.ts";

const KEY_SETTINGS = [
  ["OPENAI_API_KEY", "providerKeys.openai"],
  ["ANTHROPIC_API_KEY", "providerKeys.anthropic"],
  ["GOOGLE_GENERATIVE_AI_API_KEY", "providerKeys.google"],
  ["DOSSIER_API_KEY", "apiKey"],
  ["TAVILY_API_KEY", "searchKeys.tavily"],
  ["EXA_API_KEY", "searchKeys.exa"],
  ["BRAVE_API_KEY", "searchKeys.brave"],
  ["SERPER_API_KEY", "searchKeys.serper"],
  ["JINA_API_KEY", "searchKeys.jina"],
] as const;

function valueAt(config: object, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

/** The facts `dossier config` shows, as data. */
export function describeConfig(io: CliIo, loaded: LoadedConfig) {
  const { config, origins } = loaded;
  const home = homeDir(io, loaded);
  const store = join(home, DATABASE_FILE);
  const originOf = (path: string) => origins[path]?.label ?? "default";
  const models = ROLES.map((role) => {
    const path = role === "default" ? "model" : `models.${role}`;
    const value = role === "default" ? config.model : (config.models[role] ?? config.model);
    const own = role === "default" || config.models[role] !== undefined;
    const price = value ? priceFor(parseModelSpec(value), config.prices) : null;
    return { role, model: value ?? null, from: own ? originOf(path) : "default model", price };
  });
  const keys = KEY_SETTINGS.map(([name, path]) => {
    const value = valueAt(config, path);
    return {
      name,
      present: typeof value === "string",
      masked: typeof value === "string" ? maskSecret(value) : null,
      from: origins[path]?.label ?? null,
    };
  });
  return {
    version: VERSION,
    configFile: loaded.file,
    home,
    store: { path: store, exists: existsSync(store) },
    models,
    baseUrl: config.baseUrl ?? null,
    keys,
    search: { providers: config.search, searxngUrl: config.searxngUrl ?? null },
    allowPrivateNetwork: config.allowPrivateNetwork,
    budget: config.budget,
    concurrency: config.concurrency,
    config: maskedConfig(config),
  };
}

function renderText(io: CliIo, d: ReturnType<typeof describeConfig>): string {
  const pad = (s: string, n: number) => s.padEnd(n);
  const lines = [
    `Dossier ${d.version}`,
    "",
    `${pad("Configuration file", 20)}${d.configFile ?? `none (${CONFIG_FILE} not found in ${io.cwd})`}`,
    `${pad("Data directory", 20)}${d.home}`,
    `${pad("Store", 20)}${d.store.path}${d.store.exists ? "" : " (created on first use)"}`,
    "",
    "Models",
    ...d.models.map((m) =>
      `  ${pad(m.role, 10)}${pad(m.model ?? "not configured", 38)}${pad(m.from, 28)}${
        m.model
          ? m.price
            ? `$${m.price.inputPerMTok}/$${m.price.outputPerMTok} per M tokens`
            : "price unknown"
          : ""
      }`.trimEnd(),
    ),
    `  ${pad("base URL", 10)}${d.baseUrl ?? "—"}`,
    "",
    "Keys",
    ...d.keys.map(
      (k) => `  ${pad(k.name, 30)}${k.present ? `set (${k.masked}, from ${k.from})` : "not set"}`,
    ),
    "",
    "Search",
    `  ${pad("providers", 12)}${d.search.providers.length ? d.search.providers.join(", ") : "none configured (set DOSSIER_SEARCH)"}`,
    `  ${pad("SearXNG", 12)}${d.search.searxngUrl ?? "—"}`,
    "",
    `${pad("Private network", 20)}${d.allowPrivateNetwork ? "allowed (DOSSIER_ALLOW_PRIVATE_NETWORK)" : "refused"}`,
    `${pad("Concurrency", 20)}${d.concurrency}`,
    `${pad("Budget defaults", 20)}${Object.keys(d.budget).length ? JSON.stringify(d.budget) : "none"}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** Registers `dossier config`. */
export function registerConfigCommand(program: Command, io: CliIo): void {
  program
    .command("config")
    .description(commandEntry("config").description)
    .option("--json", "print JSON")
    .action((opts: { json?: boolean }, cmd: Command) => {
      const loaded = loadCliConfig(io, cmd.optsWithGlobals<GlobalFlags>());
      const description = describeConfig(io, loaded);
      io.out(opts.json ? `${JSON.stringify(description, null, 2)}\n` : renderText(io, description));
    });
}

/** Environment variables Dossier reads, for help text. */
export const ENVIRONMENT_HELP = ENV_SETTINGS.filter((s) => !s.env.startsWith("DOSSIER_MODEL_"))
  .map((s) => s.env)
  .concat("DOSSIER_MODEL_<ROLE>");
