/**
 * Living reports on the PostgreSQL store: a refresh reads its parent (record, events, report)
 * from PostgreSQL like from SQLite, rewrites only the section citing the changed page, and the
 * versions are found among the stored runs. Skips with a notice when PostgreSQL does not answer.
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import {
  pagesOfSection,
  perSourceSections,
  REFRESH_PARENT,
  sectionsCiting,
} from "../../test/research/refresh-answers.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { postgresProblem, servicesAnswer, TEST_DATABASE_URL } from "../../test/services.ts";
import { createDossier, type Dossier } from "./dossier.ts";
import { splitSections } from "./refresh-sections.ts";
import { versionsOf } from "./refresh-versions.ts";

const PARENT = REFRESH_PARENT;

let world: ResearchWorld | undefined;
let dossier: Dossier | undefined;
const schema = `dossier_test_${randomBytes(6).toString("hex")}`;
afterEach(async () => {
  await dossier?.close();
  await world?.close();
  dossier = undefined;
  world = undefined;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
});

if (servicesAnswer([await postgresProblem()])) {
  describe("refresh on PostgreSQL", () => {
    it("rewrites the section citing a changed page and lists the versions", async () => {
      world = await startResearchWorld({ subtasks: 4, override: perSourceSections, expectCalls: PARENT });
      const url = new URL(TEST_DATABASE_URL);
      url.searchParams.set("schema", schema);
      dossier = createDossier({
        config: { ...world.config, databaseUrl: url.toString() },
        cwd: world.home,
        env: {},
      });
      expect(dossier.store.kind).toBe("postgres");
      const parent = await dossier.research("How is topic adoption changing?", { strategy: "minddr" }).done;
      expect(parent.status).toBe("completed");
      const sections = splitSections(parent.report!.body);
      const [page] = pagesOfSection(parent.report!, sections, "Comparison");
      expect(sectionsCiting(parent.report!, sections, page!)).toEqual(["Comparison"]);
      world.changePages([page!]);
      world.script.expectCalls({ ...PARENT, section: 5 });
      const v2 = await dossier.refresh(parent.runId);
      expect(v2).toMatchObject({ status: "completed", version: 2, sectionsChanged: ["Comparison"] });
      const after = splitSections(v2.report!.body);
      for (const [i, s] of sections.entries()) {
        if (s.title === "Comparison") expect(after[i]!.text).not.toBe(s.text);
        else expect(after[i]!.text).toBe(s.text);
      }
      const versions = await versionsOf(dossier.runs, await dossier.runs.get(parent.runId));
      expect(versions.map((v) => [v.version, v.runId])).toEqual([
        [1, parent.runId],
        [2, v2.runId],
      ]);
    });
  });
}
