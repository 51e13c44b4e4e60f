/**
 * Loading the configuration: flags > environment > `dossier.config.json` > defaults, validated
 * with zod. A bad value yields one CONFIG_INVALID error naming the setting as the user wrote it
 * (an environment variable, a file key or a flag), the bad value and the expected form.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { z } from "zod";
import { DossierError } from "../core/errors.ts";
import { redactUrlsIn } from "../core/url-redact.ts";
import { ROLES } from "../llm/model-spec.ts";
import { type Config, configSchema, maskSecret, SECRET_PATHS } from "./config.ts";

/** Name of the configuration file looked for in the working directory. */
export const CONFIG_FILE = "dossier.config.json";

/** Where a setting's value came from. */
export interface SettingOrigin {
  /** How the user wrote it: `DOSSIER_MODEL`, `--model`, `dossier.config.json: model`. */
  label: string;
  /** The value as given. */
  raw: unknown;
}

/** A loaded configuration and where each value came from. */
export interface LoadedConfig {
  config: Config;
  /** Origins by dotted setting path; paths absent here hold defaults. */
  origins: Record<string, SettingOrigin>;
  /** The configuration file read, or null. */
  file: string | null;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  /** Flag values by setting path, e.g. `{ model: { label: "--model", raw: "openai:gpt-4o" } }`. */
  flags?: Record<string, SettingOrigin>;
  cwd?: string;
  /** An explicit configuration file (an error if it does not exist). */
  configFile?: string;
  /**
   * Settings given in code (`createDossier({ config })`), in the shape of the configuration
   * file; they override the file and the environment, and flags override them.
   */
  overrides?: ConfigOverrides;
}

/** Settings given in code: any part of the configuration file's shape. */
export type ConfigOverrides = {
  [K in keyof z.input<typeof configSchema>]?: z.input<typeof configSchema>[K] extends infer V
    ? V extends readonly unknown[]
      ? V
      : V extends object
        ? Partial<V>
        : V
    : never;
};

type Kind = "string" | "list" | "bool" | "int";

/** Environment variables and the settings they set. */
export const ENV_SETTINGS: ReadonlyArray<{ env: string; path: string; kind: Kind }> = [
  { env: "DOSSIER_MODEL", path: "model", kind: "string" },
  ...ROLES.filter((r) => r !== "default").map((role) => ({
    env: `DOSSIER_MODEL_${role.toUpperCase()}`,
    path: `models.${role}`,
    kind: "string" as const,
  })),
  { env: "DOSSIER_BASE_URL", path: "baseUrl", kind: "string" },
  { env: "DOSSIER_API_KEY", path: "apiKey", kind: "string" },
  { env: "OPENAI_API_KEY", path: "providerKeys.openai", kind: "string" },
  { env: "ANTHROPIC_API_KEY", path: "providerKeys.anthropic", kind: "string" },
  { env: "GEMINI_API_KEY", path: "providerKeys.google", kind: "string" },
  { env: "GOOGLE_GENERATIVE_AI_API_KEY", path: "providerKeys.google", kind: "string" },
  { env: "DOSSIER_SEARCH", path: "search", kind: "list" },
  { env: "TAVILY_API_KEY", path: "searchKeys.tavily", kind: "string" },
  { env: "EXA_API_KEY", path: "searchKeys.exa", kind: "string" },
  { env: "BRAVE_API_KEY", path: "searchKeys.brave", kind: "string" },
  { env: "SERPER_API_KEY", path: "searchKeys.serper", kind: "string" },
  { env: "JINA_API_KEY", path: "searchKeys.jina", kind: "string" },
  { env: "SEARXNG_URL", path: "searxngUrl", kind: "string" },
  { env: "DOSSIER_ACADEMIC", path: "academic", kind: "list" },
  { env: "OPENALEX_EMAIL", path: "openalexEmail", kind: "string" },
  { env: "DOSSIER_HOME", path: "home", kind: "string" },
  { env: "DOSSIER_DATABASE_URL", path: "databaseUrl", kind: "string" },
  { env: "DOSSIER_REDIS_URL", path: "redisUrl", kind: "string" },
  { env: "DOSSIER_LLM_CONCURRENCY", path: "modelConcurrency", kind: "int" },
  { env: "DOSSIER_ALLOW_PRIVATE_NETWORK", path: "allowPrivateNetwork", kind: "bool" },
  { env: "DOSSIER_WEBHOOK_SECRET", path: "webhooks.secret", kind: "string" },
  { env: "DOSSIER_ALLOWED_HOSTS", path: "allowedHosts", kind: "list" },
  { env: "DOSSIER_ACCESS_LOG", path: "accessLog", kind: "string" },
  { env: "DOSSIER_OTEL", path: "telemetry.enabled", kind: "bool" },
  { env: "DOSSIER_OTEL_CONTENT", path: "telemetry.recordContent", kind: "bool" },
  { env: "DOSSIER_CONCURRENCY", path: "concurrency", kind: "int" },
  { env: "DOSSIER_LANGUAGE", path: "language", kind: "string" },
  { env: "DOSSIER_REVIEW_TIMEOUT", path: "reviewTimeoutMinutes", kind: "int" },
];

/** Converts an environment string to the setting's type; leaves it as is when it does not convert. */
export function convertEnvValue(value: string, kind: Kind): unknown {
  const v = value.trim();
  switch (kind) {
    case "list":
      return v
        .split(",")
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    case "bool":
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      return v;
    case "int":
      return /^-?\d+$/.test(v) ? Number(v) : v;
    default:
      return v;
  }
}

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

/** Splits a file's object into (key path, value) pairs, two levels deep (`models.writer`). */
function flatten(value: unknown, prefix: string[], out: Array<[string[], unknown]>): void {
  if (value && typeof value === "object" && !Array.isArray(value) && prefix.length < 2) {
    for (const [k, v] of Object.entries(value)) flatten(v, [...prefix, k], out);
  } else if (prefix.length) {
    out.push([prefix, value]);
  }
}

function readConfigFile(path: string, required: boolean): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    if (!required && (cause as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new DossierError(
      "CONFIG_INVALID",
      `cannot read configuration file ${path}: ${(cause as Error).message}`,
      {
        cause,
        details: { file: path },
      },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new DossierError(
      "CONFIG_INVALID",
      `configuration file ${path} is not valid JSON: ${(cause as Error).message}`,
      {
        cause,
        details: { file: path },
      },
    );
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new DossierError("CONFIG_INVALID", `configuration file ${path} must hold a JSON object`, {
      details: { file: path },
    });
  }
  return parsed as Record<string, unknown>;
}

/** Loads and validates the configuration. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const raw: Record<string, unknown> = {};
  const origins: Record<string, SettingOrigin> = {};
  const put = (keys: readonly string[], value: unknown, origin: SettingOrigin) => {
    setPath(raw, keys, value);
    origins[keys.join(".")] = origin;
  };

  const fileName = options.configFile ?? CONFIG_FILE;
  const filePath = resolve(cwd, fileName);
  const fileData = readConfigFile(filePath, options.configFile !== undefined);
  if (fileData) {
    const entries: Array<[string[], unknown]> = [];
    flatten(fileData, [], entries);
    for (const [keys, value] of entries)
      put(keys, value, { label: `${fileName}: ${keys.join(".")}`, raw: value });
  }
  for (const { env: name, path, kind } of ENV_SETTINGS) {
    const value = env[name];
    if (value === undefined || value.trim() === "") continue;
    put(path.split("."), convertEnvValue(value, kind), { label: name, raw: value });
  }
  if (options.overrides) {
    const entries: Array<[string[], unknown]> = [];
    flatten(options.overrides, [], entries);
    for (const [keys, value] of entries) {
      if (value === undefined) continue;
      put(keys, value, { label: `config.${keys.join(".")}`, raw: value });
    }
  }
  for (const [path, origin] of Object.entries(options.flags ?? {})) {
    if (origin.raw === undefined) continue;
    put(path.split("."), origin.raw, origin);
  }

  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw configError(parsed.error, origins, fileData ? filePath : null, fileName);
  return { config: parsed.data, origins, file: fileData ? filePath : null };
}

function configError(
  error: z.ZodError,
  origins: Record<string, SettingOrigin>,
  file: string | null,
  fileName: string,
): DossierError {
  const issue = error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const where = path.length ? `${path.join(".")}.` : "";
    const source = file ? fileName : "configuration";
    return new DossierError(
      "CONFIG_INVALID",
      `invalid setting in ${source}: unknown key "${where}${issue.keys[0]}"`,
      { details: { setting: `${where}${issue.keys[0]}`, file } },
    );
  }
  let origin: SettingOrigin | undefined;
  for (let n = path.length; n > 0 && !origin; n--) origin = origins[path.slice(0, n).join(".")];
  const label = origin?.label ?? path.join(".");
  // A secret is never shown, not even a malformed one.
  const secret = (SECRET_PATHS as readonly string[]).includes(path.join("."));
  const raw =
    typeof origin?.raw === "string"
      ? secret
        ? maskSecret(origin.raw)
        : redactUrlsIn(origin.raw)
      : origin?.raw;
  const shown = origin ? ` ${JSON.stringify(raw)}` : "";
  const expected = issue.message.replace(/^Invalid input: /, "");
  return new DossierError("CONFIG_INVALID", `invalid setting ${label}:${shown} — ${expected}`, {
    details: { setting: label, path: path.join("."), value: raw ?? null, expected },
  });
}
