import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isInside, walkCorpus } from "./walk.ts";

let base: string;
let root: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "dossier-walk-")));
  root = join(base, "root");
  mkdirSync(join(root, "sub", "deeper"), { recursive: true });
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const walk = (maxFileBytes = 1000) => walkCorpus(root, { maxFileBytes });

describe("walkCorpus", () => {
  it("lists supported files in name order with relative paths and kinds", async () => {
    writeFileSync(join(root, "b.md"), "# b");
    writeFileSync(join(root, "a.txt"), "a");
    writeFileSync(join(root, "README"), "readme");
    writeFileSync(join(root, "sub", "deeper", "c.HTML"), "<p>c</p>");
    writeFileSync(join(root, "sub", "d.pdf"), "%PDF-");
    const result = await walk();
    expect(result.root).toBe(root);
    expect(result.files.map((f) => [f.path, f.kind, f.size])).toEqual([
      ["README", "text", 6],
      ["a.txt", "text", 1],
      ["b.md", "markdown", 3],
      ["sub/d.pdf", "pdf", 5],
      ["sub/deeper/c.HTML", "html", 8],
    ]);
    expect(result.files[0]!.realPath).toBe(join(root, "README"));
    expect(result.skipped).toEqual([]);
  });

  it("skips hidden entries, unsupported types and oversized files", async () => {
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git", "config.txt"), "x");
    writeFileSync(join(root, ".hidden.md"), "x");
    writeFileSync(join(root, "photo.jpg"), "x");
    writeFileSync(join(root, "huge.md"), "x".repeat(1001));
    writeFileSync(join(root, "fits.md"), "x".repeat(1000));
    const result = await walk();
    expect(result.files.map((f) => f.path)).toEqual(["fits.md"]);
    expect(result.skipped).toEqual([
      { path: "huge.md", reason: "too-large", detail: "1001 bytes, over the limit of 1000" },
      { path: "photo.jpg", reason: "unsupported-type", detail: "file type not ingested (photo.jpg)" },
    ]);
  });

  it("detects a symlink loop and never leaves the root", async () => {
    writeFileSync(join(base, "secret.md"), "secret");
    mkdirSync(join(base, "elsewhere"));
    writeFileSync(join(base, "elsewhere", "x.md"), "x");
    writeFileSync(join(root, "sub", "ok.md"), "ok");
    symlinkSync("..", join(root, "sub", "loop"));
    symlinkSync(join(base, "secret.md"), join(root, "secret-link.md"));
    symlinkSync("../elsewhere", join(root, "away"));
    symlinkSync("nowhere.md", join(root, "dangling.md"));
    symlinkSync("self", join(root, "self"));
    const result = await walk();
    expect(result.files.map((f) => f.path)).toEqual(["sub/ok.md"]);
    expect(result.skipped).toEqual([
      { path: "away", reason: "outside-root", detail: "away -> ../elsewhere" },
      { path: "dangling.md", reason: "broken-link", detail: "dangling.md -> nowhere.md" },
      {
        path: "secret-link.md",
        reason: "outside-root",
        detail: `secret-link.md -> ${join(base, "secret.md")}`,
      },
      { path: "self", reason: "symlink-loop", detail: "self -> self" },
      { path: "sub/loop", reason: "symlink-loop", detail: "sub/loop -> .." },
    ]);
  });

  it("indexes a file reached through a link only once, under its own path", async () => {
    writeFileSync(join(root, "sub", "real.md"), "real");
    symlinkSync("sub/real.md", join(root, "alias.md"));
    symlinkSync("sub", join(root, "again"));
    const result = await walk();
    expect(result.files.map((f) => f.path)).toEqual(["sub/real.md"]);
    expect(result.skipped).toEqual([
      { path: "again", reason: "duplicate", detail: "same folder as sub" },
      { path: "alias.md", reason: "duplicate", detail: "same file as sub/real.md" },
    ]);
  });

  it("follows a link to a hidden folder inside the root", async () => {
    mkdirSync(join(root, ".notes"));
    writeFileSync(join(root, ".notes", "n.md"), "n");
    symlinkSync(".notes", join(root, "notes"));
    const result = await walk();
    expect(result.files.map((f) => [f.path, f.realPath])).toEqual([
      ["notes/n.md", join(root, ".notes", "n.md")],
    ]);
  });

  it("never opens a FIFO", async () => {
    execFileSync("mkfifo", [join(root, "pipe.txt")]);
    const result = await walk();
    expect(result.skipped).toEqual([
      { path: "pipe.txt", reason: "unsupported-type", detail: "not a regular file or folder" },
    ]);
  });

  it("rejects a missing root or a file as root", async () => {
    await expect(walkCorpus(join(base, "missing"), { maxFileBytes: 1 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    writeFileSync(join(base, "file.md"), "x");
    await expect(walkCorpus(join(base, "file.md"), { maxFileBytes: 1 })).rejects.toMatchObject({
      code: "INPUT_INVALID",
    });
  });

  it("checks containment by path segments", () => {
    expect(isInside("/a/root", "/a/root")).toBe(true);
    expect(isInside("/a/root", "/a/root/x")).toBe(true);
    expect(isInside("/a/root", "/a/root2/x")).toBe(false);
    expect(isInside("/a/root", "/a")).toBe(false);
  });
});
