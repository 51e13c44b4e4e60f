/**
 * Where corpora live: `<home>/corpus/<name>.db`, one SQLite file per corpus. Names are
 * letters, digits, `.`, `_` and `-` (at most 64, not starting with `.`), so a name can never
 * point outside the corpus folder.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../../core/clock.ts";
import { DossierError } from "../../core/errors.ts";
import { CorpusIndex } from "./corpus-index.ts";

/** The corpus used when none is named. */
export const DEFAULT_CORPUS = "default";

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/** Checks a corpus name; throws INPUT_INVALID when it is not allowed. */
export function checkCorpusName(name: string): string {
  if (!NAME.test(name)) {
    throw new DossierError(
      "INPUT_INVALID",
      `corpus name "${name}" is not allowed: use letters, digits, ".", "_" and "-" (at most 64, not starting with ".")`,
      { details: { name } },
    );
  }
  return name;
}

/** The index file of corpus `name` under the data directory `home`. */
export function corpusPath(home: string, name: string = DEFAULT_CORPUS): string {
  return join(home, "corpus", `${checkCorpusName(name)}.db`);
}

/**
 * Opens the existing corpus `name` under `home` (for searching); throws NOT_FOUND, saying how
 * to create it, when it does not exist.
 */
export function openNamedCorpus(home: string, name: string = DEFAULT_CORPUS, clock?: Clock): CorpusIndex {
  const path = corpusPath(home, name);
  if (!existsSync(path)) {
    throw new DossierError(
      "NOT_FOUND",
      `no corpus named "${name}" (looked for ${path}); create it with: dossier index <folder>${name === DEFAULT_CORPUS ? "" : ` --name ${name}`}`,
      {
        details: {
          corpus: name,
          path,
          apiMessage: `no corpus named "${name}" is indexed on the server (see the list of corpora)`,
        },
      },
    );
  }
  return CorpusIndex.open({ path, create: false, ...(clock ? { clock } : {}) });
}
