#!/usr/bin/env node
// The dossier command. Runs the built JavaScript in dist/; in a source checkout without a
// build, or whose sources changed after the last build, it runs the TypeScript sources (Node
// strips the types), so a stale dist/ never runs old code.
import { existsSync, readdirSync, statSync } from "node:fs";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 13) || major === 23) {
  process.stderr.write(
    `dossier: error [CONFIG_INVALID]: Node ${process.versions.node} is not supported; Dossier needs Node 22.13 or later 22.x, or Node 24 or later (npx and npm scripts use the Node pinned in node_modules/.bin)\n`,
  );
  process.exit(2);
}
// Node 22 marks node:sqlite experimental; the store relies on it knowingly, so that one warning is not shown.
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  const text = typeof warning === "string" ? warning : warning?.message;
  if (typeof text === "string" && text.startsWith("SQLite is an experimental feature")) return;
  return emitWarning.call(process, warning, ...rest);
};
const built = new URL("../dist/cli/main.js", import.meta.url);
const sources = new URL("../src/", import.meta.url);

/** Whether dist/ exists and no source file (present only in a checkout) is newer than it. */
function builtIsCurrent() {
  if (!existsSync(built)) return false;
  if (!existsSync(sources)) return true;
  const builtAt = statSync(built).mtimeMs;
  for (const name of readdirSync(sources, { recursive: true })) {
    if (
      typeof name === "string" &&
      name.endsWith(".ts") &&
      !name.endsWith(".test.ts") &&
      statSync(new URL(name, sources)).mtimeMs > builtAt
    ) {
      return false;
    }
  }
  return true;
}

await import(builtIsCurrent() ? built.href : new URL("cli/main.ts", sources).href);
