/**
 * Imported first by every entry of the library: an unsupported Node is refused at import with
 * the same clear message as the `dossier` command, instead of a module resolution error.
 */

import { assertSupportedNode } from "./node-support.ts";

assertSupportedNode();
