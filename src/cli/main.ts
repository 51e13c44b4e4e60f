/**
 * Entry point of the `dossier` binary. `--version` answers without loading the program.
 */

import { processIo } from "./io.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const { VERSION } = await import("./version.ts");
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runCli } = await import("./program.ts");
  process.exitCode = await runCli(argv, processIo());
}
