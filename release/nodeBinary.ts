import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheRoot } from "./cache";
import { NODE_VERSION, Platform } from "./platforms";

/**
 * The official Node binary of `platform`, fetched once from its npm package into the cache and refused
 * unless the tarball has the integrity pinned in platforms.ts (as scripts/node.sh does for the tests' Node).
 */
export function nodeBinary(platform: Platform): string {
  const dir = path.join(cacheRoot(), "release-node", `v${NODE_VERSION}`, platform.npm.name);
  const binary = path.join(dir, path.basename(platform.npm.binary));
  if (fs.existsSync(binary)) return binary;
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, ".fetch-"));
  try {
    const spec = `${platform.npm.name}@${NODE_VERSION}`;
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--silent", "--json", spec], { cwd: tmp, encoding: "utf8" })) as Array<{ integrity: string; filename: string }>;
    if (packed.integrity !== platform.npm.integrity) {
      throw new Error(`${spec} has integrity ${packed.integrity}, not the pinned ${platform.npm.integrity}: refusing it`);
    }
    execFileSync("tar", ["-xzf", packed.filename, `package/${platform.npm.binary}`], { cwd: tmp });
    // Renamed into place last: a build stopped midway leaves no half binary behind for the next one.
    fs.renameSync(path.join(tmp, "package", platform.npm.binary), binary);
    return binary;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
