import * as fs from "node:fs";
import * as path from "node:path";

/** The file that marks a folder as written by `npm run release`, and so safe to empty for the next one. */
export const MARKER = ".pulumi-remote-browser-release";

/**
 * Makes `dir` ready for a release: created when missing, emptied when an earlier release wrote it, and
 * refused when it holds anything else (a mistyped `--out .` must not empty the user's checkout).
 */
export function prepareOutDir(dir: string): void {
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory()) throw new Error(`--out ${dir} is a file, not a folder`);
    const entries = fs.readdirSync(dir);
    if (entries.length > 0 && !entries.includes(MARKER)) {
      throw new Error(`--out ${dir} is not empty and is not the output of an earlier release (it has no ${MARKER}): give a new or empty folder`);
    }
    for (const entry of entries) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, MARKER), "Written by `npm run release`; the next release into this folder empties it.\n");
}
