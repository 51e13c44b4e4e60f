/**
 * What a CLI command needs besides its flags: the composition root built from the command's
 * surroundings and global flags, opened once and closed when the command ends.
 */

import type { LoadedConfig } from "../runtime/config-load.ts";
import type { Dossier } from "../runtime/dossier.ts";
import type { Store } from "../store/types.ts";
import type { ToolGateway } from "../tools/gateway.ts";
import { createDossierForCli } from "./dossier-cli.ts";
import type { CliIo } from "./io.ts";
import type { GlobalFlags } from "./settings.ts";

/** Opened services of a command. */
export interface CliServices {
  dossier: Dossier;
  loaded: LoadedConfig;
  store: Store;
  gateway: ToolGateway;
  /** Closes the store (runs under way are cancelled first). */
  close(): Promise<void>;
}

/** Builds the Dossier of a command: configuration, store under the data directory, gateway. */
export function openCliServices(io: CliIo, flags: GlobalFlags): CliServices {
  const dossier = createDossierForCli(io, flags);
  return {
    dossier,
    loaded: dossier.loaded,
    store: dossier.store,
    gateway: dossier.gateway,
    close: () => dossier.close(),
  };
}
