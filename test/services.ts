/**
 * The PostgreSQL and Redis servers tests may use: found at the addresses of the environment
 * (`DOSSIER_TEST_DATABASE_URL`, `DOSSIER_TEST_REDIS_URL`) or the project machines' defaults
 * (127.0.0.1:5432 with trust auth, database `test`; 127.0.0.1:6379). A test file that needs one
 * skips with a visible notice when it does not answer, unless `DOSSIER_REQUIRE_SERVICES=1` (CI
 * on the project's machines), where the missing service fails the file instead.
 */

import { Socket } from "node:net";
import pg from "pg";
import { describe, it } from "vitest";

/** The PostgreSQL database tests create their schemas in. */
export const TEST_DATABASE_URL =
  process.env.DOSSIER_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The Redis server tests use. */
export const TEST_REDIS_URL = process.env.DOSSIER_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** True when a missing service must fail the tests instead of skipping them. */
export const servicesRequired = process.env.DOSSIER_REQUIRE_SERVICES === "1";

/** Null when PostgreSQL answers at {@link TEST_DATABASE_URL}, else why not. */
export async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return `PostgreSQL does not answer at ${TEST_DATABASE_URL} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Null when Redis answers PING at {@link TEST_REDIS_URL}, else why not. */
export async function redisProblem(): Promise<string | null> {
  const url = new URL(TEST_REDIS_URL);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (problem: string | null) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(2_000, () => done(`Redis does not answer at ${TEST_REDIS_URL} (timeout)`));
    socket.once("error", (error) => done(`Redis does not answer at ${TEST_REDIS_URL} (${error.message})`));
    socket.connect(Number(url.port || 6379), url.hostname, () => socket.write("PING\r\n"));
    socket.once("data", (data) =>
      done(data.toString().startsWith("+PONG") ? null : `Redis at ${TEST_REDIS_URL} answered ${data}`),
    );
  });
}

/**
 * What a test file that needs services does when one is missing: with
 * `DOSSIER_REQUIRE_SERVICES=1`, a failing test naming it; otherwise a notice on stderr and a
 * skipped test naming it. Returns true when every service answered (run the file's tests).
 */
export function servicesAnswer(problems: readonly (string | null)[]): boolean {
  const missing = problems.filter((p): p is string => p !== null);
  if (missing.length === 0) return true;
  const what = missing.join("; ");
  if (servicesRequired) {
    describe("required services", () => {
      it("answer (DOSSIER_REQUIRE_SERVICES=1)", () => {
        throw new Error(what);
      });
    });
  } else {
    process.stderr.write(`\n[services] SKIPPED: ${what}\n`);
    describe.skip(`SKIPPED: ${what}`, () => {
      it("needs the service", () => {});
    });
  }
  return false;
}
