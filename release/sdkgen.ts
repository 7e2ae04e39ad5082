import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { packageRoot } from "../plugin/identity";
import { cacheRoot } from "./cache";
import { run } from "./run";

/**
 * Pulumi's own SDK code generators, built once per source and module set into the cache outside the
 * repository: release/sdkgen/main.go (Python, Node.js and Go: the generators of Pulumi's Go module, the
 * engine's go.sum pinning the modules) and release/sdkgen-dotnet-java (.NET and Java: the generators of
 * those languages' own hosts, in a module of their own with its go.sum). Both read and bind the schema with
 * release/sdkgen-schema, built with each one's own Pulumi modules. What `pulumi package add` has a language
 * host run, for machines without those hosts; the release and the tests run the same ones.
 */
const root = () => packageRoot(__dirname);

const hashOf = (...parts: Buffer[]) =>
  parts
    .reduce((h, p) => h.update(p), createHash("sha256"))
    .digest("hex")
    .slice(0, 16);

/** The shared schema loader's module: its files are part of both generators' inputs. */
const schemaModule = () => path.join(root(), "release", "sdkgen-schema");
const schemaModuleFiles = () => ["go.mod", "go.sum", "schema.go"].map((f) => fs.readFileSync(path.join(schemaModule(), f)));

/** Builds the module in `mod` into `bin` (atomically: a parallel run builds its own and renames over the same). */
async function build(mod: string, bin: string, goflags: string): Promise<string> {
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  const tmp = `${bin}.tmp-${process.pid}`;
  await run("go", ["build", "-o", tmp, "."], { cwd: mod, env: { ...process.env, GOFLAGS: goflags } });
  fs.renameSync(tmp, bin);
  return bin;
}

/** The path of the Python, Node.js and Go generator, built when missing (its module is assembled in `scratch`). */
export async function sdkgen(scratch: string): Promise<string> {
  const gen = fs.readFileSync(path.join(root(), "release", "sdkgen", "main.go"));
  const sum = fs.readFileSync(path.join(root(), "engine", "go.sum"));
  const bin = path.join(cacheRoot(), `sdkgen-${hashOf(gen, sum, ...schemaModuleFiles())}`);
  if (fs.existsSync(bin)) return bin;
  const mod = fs.mkdtempSync(path.join(scratch, "sdkgen-"));
  const goMod = fs.readFileSync(path.join(root(), "engine", "go.mod"), "utf8").replace(/^module .*$/m, "module sdkgen");
  fs.writeFileSync(path.join(mod, "go.mod"), `${goMod}\nrequire pulumi-remote-browser/sdkgen-schema v0.0.0\n\nreplace pulumi-remote-browser/sdkgen-schema => ${schemaModule()}\n`);
  // The engine's sums and the shared module's: every module of the build is verified by one or the other.
  const lines = new Set([...`${sum}\n${fs.readFileSync(path.join(schemaModule(), "go.sum"), "utf8")}`.split("\n")].filter(Boolean));
  fs.writeFileSync(path.join(mod, "go.sum"), `${[...lines].join("\n")}\n`);
  fs.writeFileSync(path.join(mod, "main.go"), gen);
  return build(mod, bin, "-mod=mod");
}

/**
 * The path of the .NET and Java generator, built when missing from its own module, whose go.sum pins every
 * module (resolved once with GOSUMDB=off, as the engine's: the checksum database does not answer for them).
 */
export async function sdkgenDotnetJava(): Promise<string> {
  const mod = path.join(root(), "release", "sdkgen-dotnet-java");
  const parts = [...["main.go", "go.mod", "go.sum"].map((f) => fs.readFileSync(path.join(mod, f))), ...schemaModuleFiles()];
  const bin = path.join(cacheRoot(), `sdkgen-dotnet-java-${hashOf(...parts)}`);
  return fs.existsSync(bin) ? bin : build(mod, bin, "-mod=readonly -buildvcs=false");
}
