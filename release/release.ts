import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pluginIdentity } from "../plugin/identity";
import { archiveEntries, checksums, writeArchive } from "./archive";
import type { ReleaseArgs } from "./args";
import { bundlePlugin, type ReleaseFacts } from "./bundle";
import { fileType } from "./fileType";
import { packNpm } from "./npmPackage";
import { prepareOutDir } from "./outDir";
import { archiveName, executableName, platformId, selectPlatforms } from "./platforms";
import type { Platform } from "./platforms";
import { seaBlob, seaExecutable } from "./sea";
import { checkSignature } from "./signing";
import { writeSdks } from "./sdks";

const root = path.resolve(__dirname, "..", "..");

/** What a release wrote, by file name. */
export interface ReleaseOutput {
  facts: ReleaseFacts;
  archives: Array<{ platform: string; file: string; fileType: string; bytes: number }>;
  files: string[];
}

/**
 * Writes a release into `args.out`: one plugin archive per platform, `checksums.txt` over them, the schema
 * the linux-amd64 binary serves, the SDKs generated from it (under `sdk/`, release/sdks.ts), and the npm
 * tarball of this package. `pulumi` is the CLI that asks the
 * binary for its schema.
 */
export async function writeRelease(args: ReleaseArgs, pulumi: string, log: (line: string) => void = () => {}): Promise<ReleaseOutput> {
  const platforms = selectPlatforms(args.platforms);
  // The checkout's identity (package.json), at the release's version and, when given, its download address.
  const identity = pluginIdentity();
  const facts: ReleaseFacts = {
    version: args.version,
    pluginDownloadURL: args.pluginDownloadURL ?? identity.pluginDownloadURL,
    repository: identity.repository,
  };
  const out = path.resolve(args.out);
  prepareOutDir(out);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-release-"));
  try {
    log(`bundling the plugin as ${facts.version} (${facts.pluginDownloadURL})`);
    const bundle = (await bundlePlugin(facts)).code;
    // V8's code cache is valid only for the Node binary that makes it, the linux-amd64 one (sea.ts): that
    // executable's blob carries it, the others' do not.
    const blobs = new Map<boolean, Buffer>();
    const blobFor = (p: Platform) => {
      const codeCache = p.os === "linux" && p.arch === "amd64";
      if (!blobs.has(codeCache)) blobs.set(codeCache, seaBlob(bundle, work, { codeCache }));
      return blobs.get(codeCache)!;
    };
    for (const doc of ["LICENSE", "README.md"]) fs.copyFileSync(path.join(root, doc), path.join(work, doc));
    const archives: ReleaseOutput["archives"] = [];
    for (const platform of platforms) {
      log(`building ${platformId(platform)}`);
      const exe = path.join(work, executableName(platform));
      await seaExecutable(platform, blobFor(platform), exe);
      const type = fileType(exe);
      if (!type.startsWith(platform.fileType)) throw new Error(`the ${platformId(platform)} executable is ${type}, not ${platform.fileType}`);
      checkSignature(platform, exe);
      if (platform.os === "linux" && platform.arch === "amd64") {
        log("asking the linux-amd64 binary for its schema");
        fs.writeFileSync(path.join(out, "schema.json"), schemaOf(pulumi, exe));
      }
      const file = archiveName(platform, facts.version);
      writeArchive(path.join(out, file), work, [executableName(platform), "LICENSE", "README.md"]);
      fs.rmSync(exe);
      const entries = archiveEntries(path.join(out, file));
      if (!entries.includes(executableName(platform))) throw new Error(`${file} lacks ${executableName(platform)} at its root (it holds ${entries.join(", ")})`);
      archives.push({ platform: platformId(platform), file, fileType: type, bytes: fs.statSync(path.join(out, file)).size });
    }
    fs.writeFileSync(
      path.join(out, "checksums.txt"),
      checksums(
        out,
        archives.map((a) => a.file),
      ),
    );
    const sdks: string[] = [];
    if (args.sdks !== false) {
      log("generating the SDKs from the served schema");
      const written = await writeSdks({ schemaFile: path.join(out, "schema.json"), version: facts.version, pluginDownloadURL: facts.pluginDownloadURL, out: path.join(out, "sdk") });
      sdks.push(...written.map((p) => path.relative(out, p)));
    }
    log("packing the npm package");
    const npmTarball = packNpm(root, facts.version, out);
    return { facts, archives, files: [...archives.map((a) => a.file), "checksums.txt", "schema.json", ...sdks, npmTarball] };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The schema a plugin executable serves, as `pulumi package get-schema` reads it. */
function schemaOf(pulumi: string, exe: string): string {
  const text = execFileSync(pulumi, ["package", "get-schema", exe], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "pipe"] });
  return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
}
