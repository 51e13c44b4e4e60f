/**
 * What a run writes while it runs, over the asynchronous store port. Strategies, the LLM client
 * and the tool gateway emit events and journal steps without waiting; the writer hands each one
 * to the store at once (a store keeps the order of appends it is given) and keeps the journal in
 * memory, filled from the store before the run starts, so a resumed run replays every step its
 * earlier attempts stored. `flush` waits until everything written so far is stored.
 */

import { DossierError, toDossierError } from "../core/errors.ts";
import type { DossierEvent, EventInput } from "../core/events.ts";
import type { JournalEntry, StepJournal } from "../core/journal.ts";
import type { Store } from "./types.ts";

/** The writing side of one run. */
export interface RunWriter {
  /**
   * Appends an event; returns it with the `seq` it is stored under (the run's owner is its only
   * writer, so the sequence is known before the store answers).
   */
  emit(event: EventInput, ts: string): DossierEvent;
  /** The run's step journal: reads from memory, writes through to the store. */
  readonly journal: StepJournal;
  /** Entries the journal held when the run started (replayed steps). */
  readonly replayable: number;
  /** Resolves once everything written so far is stored; rejects with the first failure. */
  flush(): Promise<void>;
  /** Drops every later write (the run was taken over by another process). */
  halt(): void;
}

/** Options of {@link openRunWriter}. */
export interface RunWriterOptions {
  /** Called once with the first write that failed (the run cannot be recorded faithfully). */
  onFailure?: (error: DossierError) => void;
}

/** Reads the run's last `seq` and its journal, and returns its writer. */
export async function openRunWriter(
  store: Store,
  runId: string,
  options: RunWriterOptions = {},
): Promise<RunWriter> {
  const stored = store.journal(runId);
  const [lastSeq, entries] = await Promise.all([store.events.lastSeq(runId), stored.entries()]);
  let next = lastSeq;
  let halted = false;
  let failure: DossierError | null = null;
  let written: Promise<void> = Promise.resolve();

  const track = (write: Promise<unknown>) => {
    const settled = write.then(
      () => {},
      (error) => {
        if (failure) return;
        failure = toDossierError(error, "STORE_ERROR");
        options.onFailure?.(failure);
      },
    );
    written = written.then(() => settled);
  };

  const journal: StepJournal = {
    get: (key) => entries.get(key),
    put(key: string, entry: JournalEntry) {
      if (halted) return;
      entries.set(key, entry);
      track(stored.put(key, entry));
    },
  };

  return {
    emit(event, ts) {
      const seq = ++next;
      const expected = { ...event, runId, seq, ts } as DossierEvent;
      if (halted) return expected;
      track(
        store.events.append(runId, event, ts).then((appended) => {
          if (appended.seq !== seq) {
            throw new DossierError(
              "STORE_ERROR",
              `the event log of run ${runId} was written by another process (seq ${appended.seq}, expected ${seq})`,
              { details: { runId, seq: appended.seq, expected: seq } },
            );
          }
        }),
      );
      return expected;
    },
    journal,
    replayable: entries.size,
    async flush() {
      await written;
      if (failure) throw failure;
    },
    halt() {
      halted = true;
    },
  };
}
