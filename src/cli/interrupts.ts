/**
 * Ctrl-C and SIGTERM while a command follows a run: either aborts the run's signal (the run is
 * recorded as cancelled and stays resumable); SIGTERM is remembered, so the exit code can say the
 * process was terminated rather than interrupted.
 */

/** Listening for the interrupts of one command. */
export interface Interrupts {
  /** Aborted by the first Ctrl-C or SIGTERM, with the reason. */
  readonly signal: AbortSignal;
  /** True once SIGTERM arrived. */
  terminated(): boolean;
  /** Stops listening. */
  stop(): void;
}

/** Starts listening for Ctrl-C and SIGTERM. */
export function listenForInterrupts(): Interrupts {
  const interrupt = new AbortController();
  let terminated = false;
  const onSigint = () => interrupt.abort("interrupted (Ctrl-C)");
  const onSigterm = () => {
    terminated = true;
    interrupt.abort("terminated (SIGTERM)");
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  return {
    signal: interrupt.signal,
    terminated: () => terminated,
    stop() {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
    },
  };
}
