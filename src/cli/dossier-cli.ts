/**
 * The composition root as a CLI command uses it: the global flags become the top layer of the
 * configuration, everything else comes from the command's surroundings.
 */

import { createDossier, type Dossier, type DossierOptions } from "../runtime/dossier.ts";
import type { CliIo } from "./io.ts";
import { flagLayer, type GlobalFlags } from "./settings.ts";

/** Builds the Dossier a command works through. */
export function createDossierForCli(
  io: CliIo,
  flags: GlobalFlags,
  extra: Pick<DossierOptions, "limiter"> = {},
): Dossier {
  return createDossier({
    env: io.env,
    cwd: io.cwd,
    flags: flagLayer(flags),
    ...(flags.config ? { configFile: flags.config } : {}),
    ...extra,
  });
}
