/**
 * Walking a folder safely. Every path is resolved to its real path; a symbolic link is
 * followed only when its target lies inside the root (`outside-root` otherwise), a link to
 * one of its own ancestor folders is a `symlink-loop`, and a folder or file reached a second
 * time through a link is a `duplicate` (links are followed after the real entries). Special files (FIFOs, sockets, devices) are never
 * opened. Names starting with `.` (`.git`, `.dossier`) are not walked. Entries are visited in
 * code-point order of their names, so runs are deterministic. Nothing here reads file
 * contents.
 */

import type { Dirent, Stats } from "node:fs";
import { readdir, readlink, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { DossierError } from "../../core/errors.ts";
import { kindOfFile } from "./file-kind.ts";
import type { DocumentKind, SkippedFile } from "./types.ts";

/** A file to ingest. */
export interface CorpusFile {
  /** Path relative to the root, `/`-separated (through links, as the user sees it). */
  path: string;
  /** The real path to read. */
  realPath: string;
  kind: DocumentKind;
  size: number;
  mtimeMs: number;
}

/** Options of {@link walkCorpus}. */
export interface WalkOptions {
  /** Files larger than this are skipped as `too-large`. */
  maxFileBytes: number;
  /** Walk names starting with `.` too (default false). */
  includeHidden?: boolean;
}

/** What a walk found. */
export interface WalkResult {
  /** The real path of the root. */
  root: string;
  files: CorpusFile[];
  skipped: SkippedFile[];
}

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string })?.code;
}

/** True when `path` is `root` or lies under it (both real paths). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function realRoot(root: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(root);
  } catch (cause) {
    throw new DossierError("NOT_FOUND", `cannot open the folder ${root}: ${(cause as Error).message}`, {
      cause,
      details: { path: root },
    });
  }
  const info = await stat(real);
  if (!info.isDirectory()) {
    throw new DossierError("INPUT_INVALID", `${root} is not a folder`, { details: { path: root } });
  }
  return real;
}

interface PendingLink {
  path: string;
  abs: string;
  ancestors: ReadonlySet<string>;
}

/**
 * Walks `root` and lists the files to ingest and the entries skipped, with reasons. Real
 * entries are walked first and links afterwards, so a file reachable both directly and
 * through a link is indexed under its own path and the link is the `duplicate`.
 */
export async function walkCorpus(root: string, options: WalkOptions): Promise<WalkResult> {
  const rootReal = await realRoot(root);
  const files: CorpusFile[] = [];
  const skipped: SkippedFile[] = [];
  const dirs = new Map<string, string>([[rootReal, "."]]);
  const seenFiles = new Map<string, string>();
  const links: PendingLink[] = [];
  const skip = (path: string, reason: SkippedFile["reason"], detail: string): void => {
    skipped.push({ path, reason, detail });
  };
  const linkTarget = async (abs: string) => readlink(abs).catch(() => "?");

  const addFile = (path: string, name: string, target: string, info: Stats): void => {
    const kind = kindOfFile(name);
    if (kind === null) {
      skip(path, "unsupported-type", `file type not ingested (${name})`);
      return;
    }
    const first = seenFiles.get(target);
    if (first !== undefined) {
      skip(path, "duplicate", `same file as ${first}`);
      return;
    }
    if (info.size > options.maxFileBytes) {
      skip(path, "too-large", `${info.size} bytes, over the limit of ${options.maxFileBytes}`);
      return;
    }
    seenFiles.set(target, path);
    files.push({ path, realPath: target, kind, size: info.size, mtimeMs: Math.trunc(info.mtimeMs) });
  };

  const visit = async (realDir: string, rel: string, ancestors: ReadonlySet<string>): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(realDir, { withFileTypes: true });
    } catch (error) {
      skip(rel || ".", "unreadable", (error as Error).message);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!options.includeHidden && entry.name.startsWith(".")) continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      const abs = join(realDir, entry.name);
      if (entry.isSymbolicLink()) {
        links.push({ path, abs, ancestors });
        continue;
      }
      if (!entry.isDirectory() && !entry.isFile()) {
        skip(path, "unsupported-type", "not a regular file or folder");
        continue;
      }
      let info: Stats;
      try {
        info = await stat(abs);
      } catch (error) {
        skip(path, "unreadable", (error as Error).message);
        continue;
      }
      if (info.isDirectory()) {
        dirs.set(abs, path);
        await visit(abs, path, new Set([...ancestors, abs]));
      } else if (info.isFile()) {
        addFile(path, entry.name, abs, info);
      } else {
        skip(path, "unsupported-type", "not a regular file or folder");
      }
    }
  };

  const follow = async ({ path, abs, ancestors }: PendingLink): Promise<void> => {
    let target: string;
    try {
      target = await realpath(abs);
    } catch (error) {
      const code = errorCode(error);
      if (code === "ELOOP") skip(path, "symlink-loop", `${path} -> ${await linkTarget(abs)}`);
      else if (code === "ENOENT") skip(path, "broken-link", `${path} -> ${await linkTarget(abs)}`);
      else skip(path, "unreadable", (error as Error).message);
      return;
    }
    if (!isInside(rootReal, target)) {
      skip(path, "outside-root", `${path} -> ${await linkTarget(abs)}`);
      return;
    }
    let info: Stats;
    try {
      info = await stat(target);
    } catch (error) {
      skip(path, "unreadable", (error as Error).message);
      return;
    }
    if (info.isDirectory()) {
      if (ancestors.has(target)) {
        skip(path, "symlink-loop", `${path} -> ${await linkTarget(abs)}`);
        return;
      }
      const first = dirs.get(target);
      if (first !== undefined) {
        skip(path, "duplicate", `same folder as ${first}`);
        return;
      }
      dirs.set(target, path);
      await visit(target, path, new Set([...ancestors, target]));
    } else if (info.isFile()) {
      addFile(path, path.slice(path.lastIndexOf("/") + 1), target, info);
    } else {
      skip(path, "unsupported-type", "not a regular file or folder");
    }
  };

  await visit(rootReal, "", new Set([rootReal]));
  for (let i = 0; i < links.length; i++) await follow(links[i]!);
  return { root: rootReal, files, skipped };
}
