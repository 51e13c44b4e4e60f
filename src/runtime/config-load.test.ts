import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DossierError } from "../core/errors.ts";
import { priceFor } from "../llm/prices.ts";
import { type Config, configSchema, DEFAULT_HOME, maskedConfig, maskSecret, SECRET_PATHS } from "./config.ts";
import { CONFIG_FILE, ENV_SETTINGS, type LoadConfigOptions, loadConfig } from "./config-load.ts";

let cwd: string;

beforeEach(() => {
  cwd = fs.mkdtempSync(join(os.tmpdir(), "dossier-"));
});

afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true });
});

function writeConfig(data: unknown, name = CONFIG_FILE): string {
  const path = join(cwd, name);
  fs.mkdirSync(join(path, ".."), { recursive: true });
  fs.writeFileSync(path, typeof data === "string" ? data : JSON.stringify(data));
  return path;
}

function load(options: Omit<LoadConfigOptions, "cwd"> = {}) {
  return loadConfig({ env: {}, cwd, ...options });
}

/** Loads, expecting CONFIG_INVALID; returns the error after checking its message is one line. */
function configErrorOf(options: Omit<LoadConfigOptions, "cwd">): DossierError {
  let thrown: unknown;
  try {
    load(options);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DossierError);
  const error = thrown as DossierError;
  expect(error.code).toBe("CONFIG_INVALID");
  expect(error.message).not.toContain("\n");
  return error;
}

describe("loadConfig defaults", () => {
  it("uses the defaults when nothing is set", () => {
    const loaded = load();
    expect(loaded.file).toBeNull();
    expect(loaded.origins).toEqual({});
    expect(DEFAULT_HOME).toBe("./.dossier");
    expect(loaded.config).toEqual({
      models: {},
      providerKeys: {},
      search: [],
      searchKeys: {},
      academic: [],
      home: "./.dossier",
      allowPrivateNetwork: false,
      prices: {},
      telemetry: { enabled: false, recordContent: false },
      budget: {},
      concurrency: 16,
      reviewTimeoutMinutes: 1440,
      webhooks: {
        urls: [],
        maxAttempts: 7,
        baseDelayMs: 60_000,
        maxDelayMs: 1_800_000,
        timeoutMs: 15_000,
        exitWaitMs: 15_000,
      },
    });
    expect(loaded.config.model).toBeUndefined();
  });
});

describe("loadConfig precedence: flags > env > file > defaults", () => {
  const fileModel = "openai:gpt-4o";
  const envModel = "anthropic:claude-sonnet-4";
  const flagModel = "google:gemini-2.5-pro";

  beforeEach(() => {
    writeConfig({ model: fileModel, home: "file-home" });
  });

  it("takes the file over the defaults", () => {
    const loaded = load();
    expect(loaded.file).toBe(join(cwd, CONFIG_FILE));
    expect(loaded.config.model).toBe(fileModel);
    expect(loaded.config.home).toBe("file-home");
    expect(loaded.origins.model).toEqual({ label: "dossier.config.json: model", raw: fileModel });
    expect(loaded.origins.home).toEqual({ label: "dossier.config.json: home", raw: "file-home" });
  });

  it("takes the environment over the file", () => {
    const loaded = load({ env: { DOSSIER_MODEL: envModel, DOSSIER_HOME: "env-home" } });
    expect(loaded.config.model).toBe(envModel);
    expect(loaded.config.home).toBe("env-home");
    expect(loaded.origins.model).toEqual({ label: "DOSSIER_MODEL", raw: envModel });
    expect(loaded.origins.home).toEqual({ label: "DOSSIER_HOME", raw: "env-home" });
  });

  it("takes flags over the environment", () => {
    const loaded = load({
      env: { DOSSIER_MODEL: envModel, DOSSIER_HOME: "env-home" },
      flags: {
        model: { label: "--model", raw: flagModel },
        home: { label: "--home", raw: "flag-home" },
      },
    });
    expect(loaded.config.model).toBe(flagModel);
    expect(loaded.config.home).toBe("flag-home");
    expect(loaded.origins.model?.label).toBe("--model");
    expect(loaded.origins.home?.label).toBe("--home");
  });

  it("mixes layers setting by setting", () => {
    const loaded = load({
      env: { DOSSIER_HOME: "env-home" },
      flags: {
        model: { label: "--model", raw: flagModel },
        language: { label: "--language", raw: undefined },
      },
    });
    expect(loaded.config.model).toBe(flagModel);
    expect(loaded.config.home).toBe("env-home");
    expect(loaded.config.language).toBeUndefined();
    expect(loaded.origins.language).toBeUndefined();
  });

  it("ignores empty and blank environment values", () => {
    const loaded = load({ env: { DOSSIER_MODEL: "", DOSSIER_HOME: "   ", DOSSIER_CONCURRENCY: "" } });
    expect(loaded.config.model).toBe(fileModel);
    expect(loaded.config.home).toBe("file-home");
    expect(loaded.config.concurrency).toBe(16);
    expect(loaded.origins.model?.label).toBe("dossier.config.json: model");
    expect(loaded.origins.concurrency).toBeUndefined();
  });

  it("names the setting of a bad flag", () => {
    const error = configErrorOf({ flags: { model: { label: "--model", raw: "gpt-4o" } } });
    expect(error.message).toContain("--model");
    expect(error.message).toContain('"gpt-4o"');
    expect(error.details).toMatchObject({ setting: "--model", path: "model", value: "gpt-4o" });
  });
});

describe("loadConfig errors", () => {
  it("reports a bad DOSSIER_MODEL on one line with the value and the expected form", () => {
    const error = configErrorOf({ env: { DOSSIER_MODEL: "nonsense" } });
    expect(error.message).toContain("DOSSIER_MODEL");
    expect(error.message).toContain('"nonsense"');
    expect(error.message).toContain("provider:model");
    expect(error.details).toMatchObject({ setting: "DOSSIER_MODEL", path: "model", value: "nonsense" });
  });

  it("names DOSSIER_MODEL_WRITER for a bad per-role model", () => {
    const error = configErrorOf({
      env: { DOSSIER_MODEL: "openai:gpt-4o", DOSSIER_MODEL_WRITER: "gpt4" },
    });
    expect(error.message).toContain("DOSSIER_MODEL_WRITER");
    expect(error.message).toContain('"gpt4"');
    expect(error.message).toContain("provider:model");
    expect(error.details).toMatchObject({ setting: "DOSSIER_MODEL_WRITER", path: "models.writer" });
  });

  it("names the file key of a bad value in the file", () => {
    writeConfig({ model: "nonsense" });
    const error = configErrorOf({});
    expect(error.message).toContain("dossier.config.json: model");
    expect(error.message).toContain('"nonsense"');
    expect(error.message).toContain("provider:model");
  });

  it("names the file given with configFile, not the default name", () => {
    writeConfig({ models: { judge: "nonsense" } }, "conf/prod.json");
    const error = configErrorOf({ configFile: "conf/prod.json" });
    expect(error.message).toContain("conf/prod.json: models.judge");
    expect(error.message).not.toContain(CONFIG_FILE);
  });

  it("reports an unknown key in the file by name", () => {
    writeConfig({ model: "openai:gpt-4o", modle: "x" });
    const error = configErrorOf({});
    expect(error.message).toContain('"modle"');
    expect(error.message).toContain(CONFIG_FILE);
    expect(error.details).toMatchObject({ setting: "modle", file: join(cwd, CONFIG_FILE) });
  });

  it("reports an unknown nested key with its path", () => {
    writeConfig({ searchKeys: { google: "k" } });
    const error = configErrorOf({});
    expect(error.message).toContain('"searchKeys.google"');
  });

  it("reports a file that is not valid JSON, naming the file", () => {
    const path = writeConfig("{ model: ");
    const error = configErrorOf({});
    expect(error.message).toContain(path);
    expect(error.message).toContain("not valid JSON");
    expect(error.details).toEqual({ file: path });
  });

  it("reports a file that holds no JSON object", () => {
    const path = writeConfig("[1, 2]");
    const error = configErrorOf({});
    expect(error.message).toContain(path);
    expect(error.message).toContain("JSON object");
  });

  it("requires an explicit configuration file to exist", () => {
    const error = configErrorOf({ configFile: "missing.json" });
    expect(error.message).toContain(join(cwd, "missing.json"));
    expect(error.details).toEqual({ file: join(cwd, "missing.json") });
  });

  it("reads an explicit configuration file instead of the default one", () => {
    writeConfig({ model: "openai:gpt-4o" });
    writeConfig({ model: "anthropic:claude-sonnet-4" }, "other.json");
    const loaded = load({ configFile: "other.json" });
    expect(loaded.file).toBe(join(cwd, "other.json"));
    expect(loaded.config.model).toBe("anthropic:claude-sonnet-4");
    expect(loaded.origins.model?.label).toBe("other.json: model");
  });
});

describe("loadConfig environment conversion", () => {
  it("splits, trims and lower-cases DOSSIER_SEARCH", () => {
    const loaded = load({ env: { DOSSIER_SEARCH: "tavily, SearXNG" } });
    expect(loaded.config.search).toEqual(["tavily", "searxng"]);
    expect(load({ env: { DOSSIER_SEARCH: " exa ,, brave , " } }).config.search).toEqual(["exa", "brave"]);
  });

  it("rejects an unknown search provider, naming DOSSIER_SEARCH", () => {
    const error = configErrorOf({ env: { DOSSIER_SEARCH: "tavily,google" } });
    expect(error.message).toContain("DOSSIER_SEARCH");
    expect(error.message).toContain("tavily");
    expect(error.details).toMatchObject({ setting: "DOSSIER_SEARCH", value: "tavily,google" });
    expect(configErrorOf({ env: { DOSSIER_SEARCH: "google" } }).message).toContain("DOSSIER_SEARCH");
  });

  it.each([
    ["1", true],
    ["0", false],
    ["yes", true],
    ["no", false],
    ["TRUE", true],
    ["off", false],
    [" on ", true],
  ])("reads DOSSIER_ALLOW_PRIVATE_NETWORK=%j as %s", (value, expected) => {
    const loaded = load({ env: { DOSSIER_ALLOW_PRIVATE_NETWORK: value } });
    expect(loaded.config.allowPrivateNetwork).toBe(expected);
  });

  it("rejects a DOSSIER_ALLOW_PRIVATE_NETWORK that is not a boolean", () => {
    const error = configErrorOf({ env: { DOSSIER_ALLOW_PRIVATE_NETWORK: "garbage" } });
    expect(error.message).toContain("DOSSIER_ALLOW_PRIVATE_NETWORK");
    expect(error.message).toContain('"garbage"');
  });

  it("reads DOSSIER_CONCURRENCY as an integer and rejects other text", () => {
    expect(load({ env: { DOSSIER_CONCURRENCY: " 8 " } }).config.concurrency).toBe(8);
    const error = configErrorOf({ env: { DOSSIER_CONCURRENCY: "abc" } });
    expect(error.message).toContain("DOSSIER_CONCURRENCY");
    expect(error.message).toContain('"abc"');
    const tooSmall = configErrorOf({ env: { DOSSIER_CONCURRENCY: "0" } });
    expect(tooSmall.message).toContain("DOSSIER_CONCURRENCY");
    expect(configErrorOf({ env: { DOSSIER_CONCURRENCY: "2.5" } }).message).toContain("DOSSIER_CONCURRENCY");
  });

  it("puts per-role models from the environment in config.models, merged with the file", () => {
    writeConfig({ models: { planner: "openai:gpt-4o-mini" } });
    const loaded = load({
      env: { DOSSIER_MODEL: "openai:gpt-4o", DOSSIER_MODEL_WRITER: "anthropic:claude-opus-4-1" },
    });
    expect(loaded.config.model).toBe("openai:gpt-4o");
    expect(loaded.config.models).toEqual({
      writer: "anthropic:claude-opus-4-1",
      planner: "openai:gpt-4o-mini",
    });
    expect(loaded.origins["models.writer"]).toEqual({
      label: "DOSSIER_MODEL_WRITER",
      raw: "anthropic:claude-opus-4-1",
    });
    expect(loaded.origins["models.planner"]?.label).toBe("dossier.config.json: models.planner");
  });

  it("has a DOSSIER_MODEL_<ROLE> variable for every role but default", () => {
    const roleVars = ENV_SETTINGS.filter((s) => s.env.startsWith("DOSSIER_MODEL_"));
    expect(roleVars.map((s) => s.env)).toContain("DOSSIER_MODEL_WRITER");
    expect(roleVars.map((s) => s.env)).not.toContain("DOSSIER_MODEL_DEFAULT");
    for (const { env, path } of roleVars) {
      const role = path.replace(/^models\./, "");
      expect(env).toBe(`DOSSIER_MODEL_${role.toUpperCase()}`);
      expect(load({ env: { [env]: "ollama:llama3.1:8b" } }).config.models).toEqual({
        [role]: "ollama:llama3.1:8b",
      });
    }
  });

  it("fills provider and search keys from their variables", () => {
    const loaded = load({
      env: {
        OPENAI_API_KEY: "sk-openai-123456789",
        GEMINI_API_KEY: "gem-123456789",
        TAVILY_API_KEY: "tvly-123456789",
        SEARXNG_URL: "http://localhost:8888",
      },
    });
    expect(loaded.config.providerKeys).toEqual({ openai: "sk-openai-123456789", google: "gem-123456789" });
    expect(loaded.config.searchKeys).toEqual({ tavily: "tvly-123456789" });
    expect(loaded.config.searxngUrl).toBe("http://localhost:8888");
  });
});

describe("loadConfig file values", () => {
  it("accepts prices keyed by a model id that contains a dot", () => {
    writeConfig({
      prices: {
        "openai:gpt-4.1": { inputPerMTok: 1.5, outputPerMTok: 6 },
        "ollama:llama3.1:8b": { inputPerMTok: 0, outputPerMTok: 0 },
      },
      budget: { maxTokens: 1000, maxCostUsd: 0.5 },
    });
    const loaded = load();
    expect(loaded.config.prices).toEqual({
      "openai:gpt-4.1": { inputPerMTok: 1.5, outputPerMTok: 6 },
      "ollama:llama3.1:8b": { inputPerMTok: 0, outputPerMTok: 0 },
    });
    expect(loaded.config.budget).toEqual({ maxTokens: 1000, maxCostUsd: 0.5 });
    expect(priceFor({ provider: "openai", modelId: "gpt-4.1" }, loaded.config.prices)).toEqual({
      inputPerMTok: 1.5,
      outputPerMTok: 6,
    });
  });

  it("names the price entry of a bad price", () => {
    writeConfig({ prices: { "openai:gpt-4.1": { inputPerMTok: -1, outputPerMTok: 6 } } });
    const error = configErrorOf({});
    expect(error.message).toContain("dossier.config.json: prices.openai:gpt-4.1");
  });

  it("rejects an unknown budget limit by name", () => {
    writeConfig({ budget: { maxTokens: 10, maxDollars: 1 } });
    expect(configErrorOf({}).message).toContain('"budget.maxDollars"');
  });
});

describe("maskedConfig", () => {
  // A webhook secret has a form of its own (whsec_ and base64); every other secret is free text.
  const secretOf = (path: string) =>
    path === "webhooks.secret"
      ? `whsec_${Buffer.from("secret-webhooks-0123456789abcdefXYZ").toString("base64")}`
      : `secret-${path.replace(".", "-")}-0123456789abcdefXYZ`;

  function configWithAllSecrets(): Config {
    const raw: Record<string, Record<string, string> | string> = {};
    for (const path of SECRET_PATHS) {
      const [head, tail] = path.split(".") as [string, string | undefined];
      if (tail === undefined) raw[head] = secretOf(path);
      else raw[head] = { ...(raw[head] as Record<string, string> | undefined), [tail]: secretOf(path) };
    }
    return configSchema.parse(raw);
  }

  it("lists every key of providerKeys and searchKeys as a secret", () => {
    const groups = {
      providerKeys: Object.keys(configSchema.shape.providerKeys.unwrap().shape),
      searchKeys: Object.keys(configSchema.shape.searchKeys.unwrap().shape),
    };
    const expected = [
      "apiKey",
      ...Object.entries(groups).flatMap(([group, keys]) => keys.map((k) => `${group}.${k}`)),
      "webhooks.secret",
    ];
    expect([...SECRET_PATHS].sort()).toEqual(expected.sort());
  });

  it("never contains a full secret value", () => {
    const config = configWithAllSecrets();
    const before = structuredClone(config);
    const masked = maskedConfig(config);
    const text = JSON.stringify(masked);
    for (const path of SECRET_PATHS) {
      const secret = secretOf(path);
      expect(text).not.toContain(secret);
      expect(text).not.toContain("0123456789abcdef");
      const [head, tail] = path.split(".") as [string, string | undefined];
      const shown = tail === undefined ? masked[head] : (masked[head] as Record<string, unknown>)[tail];
      expect(shown).toBe(maskSecret(secret));
      expect(shown).toBe(`${secret.slice(0, 3)}…${secret.slice(-4)}`);
    }
    expect(config).toEqual(before);
  });

  it("hides short secrets entirely and keeps other settings", () => {
    const config = configSchema.parse({ apiKey: "abc12345", model: "openai:gpt-4o", concurrency: 3 });
    const masked = maskedConfig(config);
    expect(masked.apiKey).toBe("****");
    expect(masked.model).toBe("openai:gpt-4o");
    expect(masked.concurrency).toBe(3);
    expect(maskSecret("123456789")).toBe("123…6789");
  });

  it("masks secrets loaded from the environment", () => {
    const env: Record<string, string> = {};
    for (const { env: name, path } of ENV_SETTINGS) {
      if ((SECRET_PATHS as readonly string[]).includes(path)) {
        env[name] =
          path === "webhooks.secret"
            ? `whsec_${Buffer.from(`${name}-very-secret-value-000`).toString("base64")}`
            : `${name}-very-secret-value-000`;
      }
    }
    const text = JSON.stringify(maskedConfig(load({ env }).config));
    for (const value of Object.values(env)) expect(text).not.toContain(value);
    expect(text).not.toContain("very-secret");
  });
});
