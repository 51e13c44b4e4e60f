/** The package version. */

import pkg from "../../package.json" with { type: "json" };

/** The version of this Dossier. */
export const VERSION: string = pkg.version;
