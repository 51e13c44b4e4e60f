/**
 * The house rules of the strategies: one folder per strategy, which imports the shared kit, core,
 * llm and tools but never another strategy's folder or a layer above it; the kit imports no
 * strategy; nothing strategy-specific lives outside its folder.
 */

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUILTIN_STRATEGIES } from "./builtin.ts";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const STRATEGIES = join(SRC, "strategies");
const STRATEGY_NAMES = ["graph", "minddr", "warp", "smtl", "mams", "offline"];
/**
 * Layers a strategy folder may import from (besides its own folder and the registry's types); the
 * evaluation toolkit is among them (report checks, warp's rubric judge). A test file may also use
 * the layers above (runtime) to drive a whole run, but never another strategy's folder.
 */
const STRATEGY_MAY_IMPORT = ["kit", "core", "llm", "tools", "eval"];
/** Layers the shared kit may import from. */
const KIT_MAY_IMPORT = ["kit", "core", "llm", "tools", "eval"];
/** What a test may use besides: the composition root that runs a strategy end to end. */
const TEST_MAY_ALSO_IMPORT = ["runtime", "render", "store"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every relative module specifier of a file (static imports, re-exports and dynamic imports). */
function relativeImports(source: string): string[] {
  const specs: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']+)\1/g;
  for (const match of source.matchAll(pattern)) specs.push(match[2] as string);
  return specs;
}

/** Where an import of `file` lands, as a path below src/ ("kit/x.ts", "strategies/graph/run.ts"). */
function targets(file: string): { spec: string; target: string }[] {
  return relativeImports(readFileSync(file, "utf8"))
    .map((spec) => ({
      spec,
      target: relative(SRC, resolve(dirname(file), spec))
        .split(sep)
        .join("/"),
    }))
    .filter(({ target }) => !target.startsWith("..")); // test kit outside src/
}

describe("strategy layout", () => {
  it("finds relative imports of every form", () => {
    const found = relativeImports(
      [
        'import { a } from "../kit/a.ts";',
        'import type { B } from "./b.ts";',
        'export { c } from "../../core/c.ts";',
        'const { d } = await import("../d.ts");',
        'import "./side-effect.ts";',
        'import { e } from "zod";',
      ].join("\n"),
    );
    expect(found).toEqual(["../kit/a.ts", "./b.ts", "../../core/c.ts", "../d.ts", "./side-effect.ts"]);
  });

  it("has one folder per built-in strategy, and the registry and types beside them", () => {
    const entries = readdirSync(STRATEGIES);
    const folders = entries.filter((e) => statSync(join(STRATEGIES, e)).isDirectory()).sort();
    expect(folders).toEqual([...STRATEGY_NAMES].sort());
    for (const name of STRATEGY_NAMES) {
      expect(readdirSync(join(STRATEGIES, name))).toContain("definition.ts");
    }
    expect(entries).toEqual(expect.arrayContaining(["registry.ts", "types.ts", "builtin.ts"]));
    expect(BUILTIN_STRATEGIES.map((s) => s.name).sort()).toEqual([...STRATEGY_NAMES].sort());
  });

  it("keeps each strategy's imports to its own folder, the kit, core, llm, tools and the registry types", () => {
    const offences: string[] = [];
    for (const name of STRATEGY_NAMES) {
      for (const file of sourceFiles(join(STRATEGIES, name))) {
        for (const { spec, target } of targets(file)) {
          const [layer, folder] = target.split("/");
          const own = layer === "strategies" && folder === name;
          // A test may register a strategy of its own on a registry to run it end to end.
          const registryTypes =
            target === "strategies/types.ts" ||
            (file.endsWith(".test.ts") && target === "strategies/registry.ts");
          const allowed = file.endsWith(".test.ts")
            ? [...STRATEGY_MAY_IMPORT, ...TEST_MAY_ALSO_IMPORT]
            : STRATEGY_MAY_IMPORT;
          if (own || registryTypes || allowed.includes(layer as string)) continue;
          offences.push(`${relative(SRC, file)} imports ${spec}`);
        }
      }
    }
    expect(offences).toEqual([]);
  });

  it("keeps the shared kit free of strategies and of the layers above it", () => {
    const offences: string[] = [];
    for (const file of sourceFiles(join(SRC, "kit"))) {
      for (const { spec, target } of targets(file)) {
        if (!KIT_MAY_IMPORT.includes(target.split("/")[0] as string)) {
          offences.push(`${relative(SRC, file)} imports ${spec}`);
        }
      }
    }
    expect(offences).toEqual([]);
  });

  it("leaves no strategy-specific file in the shared kit or beside the registry", () => {
    // (The evaluation and training toolkits name some metrics and rewards after a seed paper,
    // e.g. train/rewards/minddr-search.ts: those are not strategy code.)
    const prefixed = new RegExp(`^(${STRATEGY_NAMES.join("|")})-`);
    const misplaced = [...sourceFiles(join(SRC, "kit")), ...sourceFiles(STRATEGIES)]
      .map((file) => relative(SRC, file).split(sep).join("/"))
      .filter((path) => !STRATEGY_NAMES.some((name) => path.startsWith(`strategies/${name}/`)))
      .filter((path) => prefixed.test(path.split("/").pop() as string));
    expect(misplaced).toEqual([]);
  });
});
