/**
 * Entry point of the `dossier` binary.
 */

import { processIo } from "./io.ts";
import { runCli } from "./program.ts";

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
