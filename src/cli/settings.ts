/**
 * Loading the configuration for a CLI command: global flags become the top layer.
 */

import { resolve } from "node:path";
import { type LoadedConfig, loadConfig, type SettingOrigin } from "../runtime/config-load.ts";
import type { CliIo } from "./io.ts";

/** Global flags every command accepts. */
export interface GlobalFlags {
  config?: string;
  home?: string;
  databaseUrl?: string;
  model?: string;
  debug?: boolean;
}

/** The setting origins of the global flags (the top configuration layer). */
export function flagLayer(flags: GlobalFlags): Record<string, SettingOrigin> {
  const layer: Record<string, SettingOrigin> = {};
  if (flags.home !== undefined) layer.home = { label: "--home", raw: flags.home };
  if (flags.databaseUrl !== undefined)
    layer.databaseUrl = { label: "--database-url", raw: flags.databaseUrl };
  if (flags.model !== undefined) layer.model = { label: "--model", raw: flags.model };
  return layer;
}

/** Loads the configuration with the global flags on top. */
export function loadCliConfig(io: CliIo, flags: GlobalFlags): LoadedConfig {
  return loadConfig({ env: io.env, cwd: io.cwd, flags: flagLayer(flags), configFile: flags.config });
}

/** The absolute data directory of a configuration. */
export function homeDir(io: CliIo, loaded: LoadedConfig): string {
  return resolve(io.cwd, loaded.config.home);
}
