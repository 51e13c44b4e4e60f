/**
 * The Node versions Dossier runs on (22.13 or later 22.x, or 24 and later: `node:sqlite` and the
 * type stripping it relies on), and the one clear refusal of any other — the same words the
 * `dossier` command prints — for the library as for the command.
 */

import { DossierError } from "./errors.ts";

/** Whether `version` (e.g. `24.1.0`) is a Node Dossier runs on. */
export function supportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return !(major < 22 || (major === 22 && minor < 13) || major === 23);
}

/** The refusal of an unsupported Node. */
export function unsupportedNodeMessage(version: string): string {
  return `Node ${version} is not supported; Dossier needs Node 22.13 or later 22.x, or Node 24 or later (npx and npm scripts use the Node pinned in node_modules/.bin)`;
}

/** Throws CONFIG_INVALID on an unsupported Node. */
export function assertSupportedNode(version = process.versions.node): void {
  if (!supportedNode(version)) throw new DossierError("CONFIG_INVALID", unsupportedNodeMessage(version));
}

/**
 * `node:sqlite`, loaded when a database is opened (so importing the library never fails on a
 * Node without it); an unsupported Node gets {@link unsupportedNodeMessage}.
 */
export function nodeSqlite(): typeof import("node:sqlite") {
  assertSupportedNode();
  const sqlite = process.getBuiltinModule?.("node:sqlite") as typeof import("node:sqlite") | undefined;
  if (!sqlite) throw new DossierError("CONFIG_INVALID", unsupportedNodeMessage(process.versions.node));
  return sqlite;
}
