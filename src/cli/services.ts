/**
 * What a CLI command needs besides its flags: the loaded configuration, the store and a tool
 * gateway, opened once and closed when the command ends.
 */

import type { LoadedConfig } from "../runtime/config-load.ts";
import { openSqliteStore } from "../store/sqlite-store.ts";
import type { Store } from "../store/types.ts";
import { ToolGateway } from "../tools/gateway.ts";
import type { CliIo } from "./io.ts";
import { type GlobalFlags, homeDir, loadCliConfig } from "./settings.ts";

/** Opened services of a command. */
export interface CliServices {
  loaded: LoadedConfig;
  store: Store;
  gateway: ToolGateway;
  close(): void;
}

/** Loads the configuration, opens the store under the data directory and builds a gateway. */
export function openCliServices(io: CliIo, flags: GlobalFlags): CliServices {
  const loaded = loadCliConfig(io, flags);
  const store = openSqliteStore({ home: homeDir(io, loaded) });
  const gateway = new ToolGateway({ cache: store.cache });
  return { loaded, store, gateway, close: () => store.close() };
}
