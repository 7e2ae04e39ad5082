import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheRoot as projectCacheRoot } from "../../release/cache";

/**
 * A folder built once and kept between test runs in `~/.cache/pulumi-remote-browser/<kind>/<key>`, where the
 * key is the hash of every input of the build: a changed input names another folder, so an entry is never
 * stale. For work the suite repeated each run with the same result (an npm install of an unchanged package,
 * a build of unchanged sources); work that is only repeated within a run belongs in a global setup.
 */
export function cacheRoot(kind: string): string {
  return path.join(projectCacheRoot(), kind);
}

/** The key of a build's inputs: file contents (Buffers) and versions or settings (strings). */
export function keyOf(...inputs: Array<Buffer | string>): string {
  const hash = createHash("sha256");
  for (const input of inputs) hash.update(typeof input === "string" ? Buffer.from(input) : input).update("\0");
  return hash.digest("hex").slice(0, 24);
}

/** How long an entry is kept after its last use: a run still using it (this or another checkout's) is younger. */
const KEEP_USED_MS = 2 * 60 * 60 * 1000;
/** Entries kept whatever their age: the last few versions of the inputs. */
const KEEP_NEWEST = 3;

/**
 * The folder of `key` under `root`, built by `build` (into an empty folder) when missing. Built beside the
 * entry and renamed into place when whole: a build that fails or is stopped half-way leaves no entry, and of
 * two runs building at once the second finds the first's and drops its own. Each use marks the entry used;
 * entries (and builds left half-way) unused for two hours are removed, beyond the three last used.
 */
export async function cachedFolder(root: string, key: string, build: (dir: string) => void | Promise<void>): Promise<{ dir: string; hit: boolean }> {
  const entry = path.join(root, key);
  const hit = fs.existsSync(path.join(entry, ".complete"));
  if (hit) {
    const now = new Date();
    fs.utimesSync(entry, now, now);
  } else {
    fs.mkdirSync(root, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(root, `${key}.tmp-`));
    try {
      await build(tmp);
      fs.writeFileSync(path.join(tmp, ".complete"), "");
      try {
        fs.renameSync(tmp, entry);
      } catch (e) {
        if (!fs.existsSync(path.join(entry, ".complete"))) throw e;
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  evict(root, key);
  return { dir: entry, hit };
}

function evict(root: string, inUse: string): void {
  const entries = fs
    .readdirSync(root)
    .filter((name) => name !== inUse)
    .map((name) => ({ name, used: fs.statSync(path.join(root, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const [i, e] of entries.entries()) {
    if (i >= KEEP_NEWEST - 1 && Date.now() - e.used > KEEP_USED_MS) fs.rmSync(path.join(root, e.name), { recursive: true, force: true });
  }
}

/**
 * Inputs for keyOf of files and folders under `root` (`rels`, relative to it; a missing one is left out): each
 * file's path and contents, a folder's files in name order.
 */
export function filesOf(root: string, rels: string[]): Array<Buffer | string> {
  const inputs: Array<Buffer | string> = [];
  const add = (rel: string) => {
    const file = path.join(root, rel);
    if (!fs.existsSync(file)) return;
    if (fs.statSync(file).isDirectory()) {
      for (const entry of fs.readdirSync(file).sort()) add(path.join(rel, entry));
    } else {
      inputs.push(rel, fs.readFileSync(file));
    }
  };
  rels.forEach(add);
  return inputs;
}
