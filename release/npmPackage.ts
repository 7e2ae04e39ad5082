import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * The npm tarball of the package in `root` at `version`, written into `out`; returns its file name. The
 * files npm would pack are staged with the version set in their package.json (what the plugin script of the
 * npm package reports as its version), so the checkout's own package.json is never rewritten.
 */
export function packNpm(root: string, version: string, out: string): string {
  const [listing] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" })) as Array<{ files: Array<{ path: string }> }>;
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "prb-npm-pack-"));
  try {
    for (const { path: file } of listing.files) {
      fs.mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
      fs.copyFileSync(path.join(root, file), path.join(stage, file));
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(stage, "package.json"), "utf8")) as { version: string };
    manifest.version = version;
    fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", out], { cwd: stage, encoding: "utf8" })) as Array<{ filename: string }>;
    return packed.filename;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}
