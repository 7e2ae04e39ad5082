import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * `out` (a `.tar.gz`) holding `files` of `dir` at its root, as the engine unpacks plugin archives. Format,
 * owner, times, order and modes are fixed (0755 for an executable, 0644 for the rest, whatever the
 * checkout's umask made them), so the same contents give the same bytes on any machine.
 */
export function writeArchive(out: string, dir: string, files: string[]): void {
  const tar = execFileSync("tar", ["--format=gnu", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "--mode=a=rX,u+w", "-C", dir, "-cf", "-", ...files], {
    maxBuffer: 1 << 30,
  });
  const gzip = execFileSync("gzip", ["-n", "-6"], { input: tar, maxBuffer: 1 << 30 });
  fs.writeFileSync(out, gzip);
}

/** The names in a `.tar.gz`, as `tar -tzf` lists them. */
export function archiveEntries(archive: string): string[] {
  return execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }).split("\n").filter(Boolean);
}

/** `checksums.txt` in sha256sum's format (`<hex>  <name>`), over `files` of `dir`. */
export function checksums(dir: string, files: string[]): string {
  return files
    .map(
      (name) =>
        `${crypto
          .createHash("sha256")
          .update(fs.readFileSync(path.join(dir, name)))
          .digest("hex")}  ${name}\n`,
    )
    .join("");
}
