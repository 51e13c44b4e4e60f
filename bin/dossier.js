#!/usr/bin/env node
// The dossier command. Runs the TypeScript sources directly (Node >= 24 strips types).
const [major] = process.versions.node.split(".").map(Number);
if (major < 24) {
  process.stderr.write(
    `dossier: error [CONFIG_INVALID]: Node ${process.versions.node} is too old; Dossier needs Node 24 or later (run it through npx or npm, which use the pinned Node from node_modules/.bin)\n`,
  );
  process.exit(2);
}
await import("../src/cli/main.ts");
