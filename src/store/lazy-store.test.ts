/**
 * The lazy store: the store contract holds through it (over SQLite), and nothing is opened —
 * no file written — before its first operation, nor by closing it unused.
 */

import fs from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeStoreContract } from "../../test/store/contract.ts";
import { lazyStore } from "./lazy-store.ts";
import { DATABASE_FILE, openSqliteStore } from "./sqlite-store.ts";

describeStoreContract({
  name: "lazy sqlite",
  async fresh() {
    const home = fs.mkdtempSync(join(os.tmpdir(), "dossier-contract-"));
    return {
      spec: { home },
      open: () =>
        lazyStore(() => openSqliteStore({ home, now: () => "2026-01-01T00:00:00.000Z" }), {
          kind: "sqlite",
          location: join(home, DATABASE_FILE),
        }),
      dispose: async () => fs.rmSync(home, { recursive: true, force: true }),
    };
  },
});

describe("lazyStore", () => {
  it("opens on the first operation, not before; closing it unused opens nothing", async () => {
    const home = fs.mkdtempSync(join(os.tmpdir(), "dossier-lazy-"));
    try {
      let opens = 0;
      const make = () =>
        lazyStore(
          () => {
            opens++;
            return openSqliteStore({ home });
          },
          { kind: "sqlite", location: join(home, DATABASE_FILE) },
        );
      const unused = make();
      expect(unused).toMatchObject({ kind: "sqlite", location: join(home, DATABASE_FILE) });
      const journal = unused.journal; // taking the functions opens nothing either
      expect(typeof journal).toBe("function");
      await unused.close();
      expect(opens).toBe(0);
      expect(fs.readdirSync(home)).toEqual([]);

      const used = make();
      expect(await used.runs.list()).toEqual([]);
      expect(used.opened()).toBe(true);
      expect(opens).toBe(1);
      expect(fs.readdirSync(home)).toContain(DATABASE_FILE);
      await used.close();
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
