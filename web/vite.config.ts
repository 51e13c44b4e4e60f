import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The UI is served by `dossier serve` from dist/web; nothing is loaded from elsewhere at run time.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
