/**
 * `dossier runs resume <id>`: takes up an interrupted, cancelled or failed run with its own id.
 * Ctrl-C and SIGTERM cancel it again (it stays resumable).
 */

import { listenForInterrupts } from "../interrupts.ts";
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
  const interrupts = listenForInterrupts();
  try {
    const handle = dossier.runs.resume(await dossier.runs.resolveId(id), {
      signal: interrupts.signal,
      onPrepared: () => {
        if (!flags.json) io.err(`dossier: resuming run ${handle.runId}\n`);
      },
    });
    const result = await handle.done;
    return printRunResult(io, result, { json: flags.json, terminated: interrupts.terminated() });
  } finally {
    interrupts.stop();
    await dossier.close();
  }
}
