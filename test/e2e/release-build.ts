import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { cacheRoot } from "../../release/cache";
import { run } from "../../release/run";
import { writeSdks } from "../../release/sdks";
import { filesOf } from "../helpers/input-cache";

/**
 * The linux-amd64 release of the current sources, made by `npm run release`'s own code
 * (dist/release/cli.js) once per change of its inputs and kept in the cache: building it takes about a
 * minute, and every test run on unchanged sources would pay it again. Without the SDKs, which
 * test/e2e/generated-sdks.test.ts makes with the release's own writeSdks (and releaseSdks below, for the
 * hosts cell).
 */
const root = path.resolve(__dirname, "..", "..");
export const RELEASE_VERSION = "9.9.9-e2e";
const INPUTS = ["api", "client", "core", "engine-conventions", "dynamic", "plugin", "release", "package.json", "package-lock.json", "LICENSE", "README.md"];

export function linuxRelease(pulumiBin: string): Promise<string> {
  return platformsRelease("linux-amd64", pulumiBin);
}

/** The same, of the platforms named (`darwin-arm64,windows-amd64`, as `--platforms` takes them). */
export async function platformsRelease(platforms: string, pulumiBin: string): Promise<string> {
  const dir = path.join(cacheRoot(), "release", platforms === "linux-amd64" ? inputsHash() : `${inputsHash()}-${platforms.replace(/,/g, "+")}`);
  if (fs.existsSync(path.join(dir, "checksums.txt"))) return dir;
  const next = `${dir}.${process.pid}`;
  await run("node", [path.join(root, "dist", "release", "cli.js"), "--version", RELEASE_VERSION, "--platforms", platforms, "--no-sdks", "--out", next], {
    cwd: root,
    env: { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: pulumiBin },
  });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(next, dir);
  return dir;
}

/**
 * The SDKs of the release in `release` (a folder linuxRelease made), as `npm run release` writes them: by the
 * release's own writeSdks, from the schema its binary served, so they carry its version and download
 * address. Kept beside the release in the cache (`<release>-sdks/`: python/, nodejs/, go/, dotnet/, java/).
 */
export async function releaseSdks(release: string): Promise<string> {
  const dir = `${release}-sdks`;
  if (fs.existsSync(path.join(dir, ".complete"))) return dir;
  const next = `${dir}.${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  const schema = JSON.parse(fs.readFileSync(path.join(release, "schema.json"), "utf8")) as { version: string; pluginDownloadURL: string };
  await writeSdks({ schemaFile: path.join(release, "schema.json"), version: schema.version, pluginDownloadURL: schema.pluginDownloadURL, out: next });
  fs.writeFileSync(path.join(next, ".complete"), "");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(next, dir);
  return dir;
}

/**
 * A release of `version` as a maintainer makes one, `npm run release -- --version <version> --platforms
 * linux-amd64 --out <dir>` (scripts/release.sh: the build, the CLI, then dist/release/cli.js with the SDKs),
 * kept in the cache while its inputs are the same. `pulumiBin` is the CLI the release asks for the schema.
 */
export async function npmRunRelease(version: string, pulumiBin: string): Promise<string> {
  const dir = path.join(cacheRoot(), "release", `npm-run-release-${inputsHash()}-${version}`);
  if (fs.existsSync(path.join(dir, "checksums.txt"))) return dir;
  const next = `${dir}.${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  await run("npm", ["run", "--silent", "release", "--", "--version", version, "--platforms", "linux-amd64", "--out", next], {
    cwd: root,
    env: { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: pulumiBin },
  });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(next, dir);
  return dir;
}

function inputsHash(): string {
  const hash = crypto.createHash("sha256");
  const parts = filesOf(root, INPUTS);
  for (let i = 0; i < parts.length; i += 2)
    hash
      .update(`${parts[i]}\0`)
      .update(parts[i + 1]!)
      .update("\0");
  return hash.digest("hex").slice(0, 16);
}

/**
 * The release's download address, played by a server on loopback that serves the release's archives by
 * name (any folder of it: each test's downloads are told apart by theirs), as the release page would.
 */
export async function releaseServer(release: string) {
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    const name =
      decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)
        .split("/")
        .pop() ?? "";
    const file = path.join(release, name);
    if (!name.startsWith("pulumi-resource-") || !fs.existsSync(file)) return void res.writeHead(404).end();
    served.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/gzip", "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, served, close: () => new Promise((resolve) => server.close(resolve)) };
}
