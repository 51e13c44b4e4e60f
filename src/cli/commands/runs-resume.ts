/**
 * `dossier runs resume <id>`: takes up an interrupted, cancelled or failed run with its own id.
 * Ctrl-C and SIGTERM cancel it again (it stays resumable).
 */

import type { CliIo } from "../io.ts";
import type { GlobalFlags } from "../settings.ts";

/** Resumes a run; resolves to the exit code. */
export async function resumeRun(
  io: CliIo,
  id: string,
  flags: GlobalFlags & { json: boolean },
): Promise<number> {
  const [{ createDossierForCli }, { printRunResult }] = await Promise.all([
    import("../dossier-cli.ts"),
    import("./research-output.ts"),
  ]);
  const dossier = createDossierForCli(io, flags);
  const interrupt = new AbortController();
  let terminated = false;
  const onSigint = () => interrupt.abort("interrupted (Ctrl-C)");
  const onSigterm = () => {
    terminated = true;
    interrupt.abort("terminated (SIGTERM)");
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  try {
    const handle = dossier.runs.resume(await dossier.runs.resolveId(id), {
      signal: interrupt.signal,
      onPrepared: () => {
        if (!flags.json) io.err(`dossier: resuming run ${handle.runId}\n`);
      },
    });
    const result = await handle.done;
    return printRunResult(io, result, { json: flags.json, terminated });
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    await dossier.close();
  }
}
