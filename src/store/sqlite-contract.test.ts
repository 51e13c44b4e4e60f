/** The store contract on the embedded SQLite store (always runs). */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { describeStoreContract } from "../../test/store/contract.ts";
import { openSqliteStore } from "./sqlite-store.ts";

describeStoreContract({
  name: "sqlite",
  async fresh() {
    const home = fs.mkdtempSync(join(os.tmpdir(), "dossier-contract-"));
    return {
      spec: { home },
      open: () => openSqliteStore({ home, now: () => "2026-01-01T00:00:00.000Z" }),
      dispose: async () => fs.rmSync(home, { recursive: true, force: true }),
    };
  },
});
