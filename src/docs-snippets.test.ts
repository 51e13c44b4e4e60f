import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Every TypeScript and JavaScript code block of README.md and docs/*.md compiles under `tsc --strict`
 * against the package's own sources, as a user's module importing `dossier` (and its subpaths) would.
 * A block whose first line is `// not compiled: <reason>` is left out.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const COMPILED = new Set(["ts", "typescript", "js", "javascript"]);
const SKIP = /^\s*\/\/\s*not compiled:\s*\S/;

/**
 * Each export of package.json ("./server" → ./dist/entries/server.js) maps to its source entry
 * (src/entries/server.ts), so snippets resolve without a build and a new subpath is covered at once.
 */
function subpaths(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | { default?: string }>;
  };
  const out: Record<string, string> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const built = typeof target === "string" ? target : target.default;
    if (!built?.startsWith("./dist/") || !built.endsWith(".js")) continue; // ./package.json
    const source = `src/${built.slice("./dist/".length, -".js".length)}.ts`;
    if (!existsSync(join(root, source))) throw new Error(`package.json exports ${key}: no ${source}`);
    out[key === "." ? pkg.name : `${pkg.name}${key.slice(1)}`] = source;
  }
  return out;
}

interface Snippet {
  doc: string;
  index: number;
  line: number;
  lang: string;
  code: string;
}

function snippetsOf(doc: string): Snippet[] {
  const lines = readFileSync(join(root, doc), "utf8").split("\n");
  const found: Snippet[] = [];
  let open: { lang: string; line: number; body: string[] } | null = null;
  let index = 0;
  for (const [i, text] of lines.entries()) {
    if (open) {
      if (/^```\s*$/.test(text)) {
        index++;
        if (COMPILED.has(open.lang)) {
          found.push({ doc, index, line: open.line, lang: open.lang, code: open.body.join("\n") });
        }
        open = null;
      } else open.body.push(text);
    } else {
      const fence = /^```(\S*)/.exec(text);
      if (fence) open = { lang: fence[1]!.toLowerCase(), line: i + 1, body: [] };
    }
  }
  if (open) throw new Error(`${doc}: the code block opened on line ${open.line} is never closed`);
  return found;
}

function documents(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

function ambient(): string[] {
  return readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".d.ts"))
    .map((f) => join("src", f));
}

const tmp: string[] = [];
afterAll(() => {
  for (const d of tmp.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("code snippets in README.md and docs/", () => {
  it("compile together in one strict tsc run against the package's sources", () => {
    const all = documents().flatMap(snippetsOf);
    const compiled = all.filter((s) => !SKIP.test(s.code.split("\n")[0] ?? ""));
    // The README's library example is among them, so the check cannot pass by finding nothing.
    expect(compiled.filter((s) => s.doc === "README.md").length).toBeGreaterThan(0);
    expect(compiled.length).toBeGreaterThanOrEqual(5);

    // Inside the repository, so that the project's package.json ("type": "module"), node_modules
    // and sources are the ones a snippet sees.
    const dir = mkdtempSync(join(root, ".docs-snippets-"));
    tmp.push(dir);
    const byFile = new Map<string, Snippet>();
    for (const s of compiled) {
      const name = `${s.doc.replace(/[^A-Za-z0-9]+/g, "_")}__snippet${s.index}_line${s.line}.ts`;
      byFile.set(name, s);
      // Each snippet is a module of its own (top-level await, no name clashes between snippets).
      writeFileSync(join(dir, name), `${s.code}\nexport {};\n`);
    }
    const rel = (p: string) => relative(dir, join(root, p)).split("\\").join("/");
    const mapped = subpaths();
    expect(Object.keys(mapped)).toEqual(
      expect.arrayContaining(["dossier", "dossier/server", "dossier/train"]),
    );
    const paths = Object.fromEntries(Object.entries(mapped).map(([k, v]) => [k, [rel(v)]]));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: rel("tsconfig.json"),
        compilerOptions: { strict: true, noEmit: true, paths },
        include: [],
        // The project's own ambient declarations (modules without types), as its tsconfig includes them.
        files: [...byFile.keys(), ...ambient().map(rel)],
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
      cwd: root,
      encoding: "utf8",
      timeout: 170_000,
    });
    const output = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? `\ntsc did not finish: ${r.error.message}` : ""}`;
    if (r.status !== 0) {
      const reports = output
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => {
          const m = /([^/\\\s]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(l);
          const s = m ? byFile.get(m[1]!) : undefined;
          if (!m || !s) return l;
          const docLine = s.line + Number(m[2]);
          return `${s.doc}, code block ${s.index} (\`\`\`${s.lang} block at line ${s.line}; error at line ${docLine}): ${m[4]}`;
        });
      expect.fail(`documentation snippets do not compile:\n${reports.join("\n")}`);
    }
    expect(r.status).toBe(0);
  }, 180_000);
});
