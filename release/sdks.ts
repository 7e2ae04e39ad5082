import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { packageRoot } from "../plugin/identity";
import { LOGO_FILE } from "../plugin/packageSchema";
import { run } from "./run";
import { sdkgen, sdkgenDotnetJava } from "./sdkgen";

/**
 * The SDKs of a release, generated from the schema the release's plugin serves (stamped with the release's
 * version and `pluginDownloadURL`, so that each SDK tells the engine which plugin to fetch and from where)
 * by each language's own Pulumi code generator, then packaged as each language's registry takes them:
 *
 *   python/   a wheel and an sdist (PyPI)
 *   nodejs/   the compiled package's tarball (`npm pack`; npm)
 *   go/remotebrowser/  the Go module, its go.mod named by the schema's Go import path (the release workflow
 *             commits it as sdk/go/remotebrowser and tags it sdk/go/remotebrowser/v<version>)
 *   dotnet/   the .NET sources with their .csproj (NuGet: `dotnet pack`)
 *   java/     the Java sources with their build.gradle (Maven)
 */

/** The Python packages the wheel and sdist are built with (no build isolation: nothing fetched at build time). */
const PYTHON_BUILD_REQUIREMENTS = ["build==1.2.2.post1", "setuptools==80.9.0", "wheel==0.45.1"];

interface Schema {
  name: string;
  version?: string;
  pluginDownloadURL?: string;
  logoUrl?: string;
  language?: { go?: { importBasePath?: string }; nodejs?: { packageName?: string }; python?: { packageName?: string } };
}

export interface SdkOptions {
  /** The schema the release's plugin serves. */
  schemaFile: string;
  /** The release's version, which the schema must carry. */
  version: string;
  /** Where the engine downloads the plugin from, which the schema must carry. */
  pluginDownloadURL: string;
  /** The folder the SDKs are written into (one subfolder per language). */
  out: string;
}

/** Writes every SDK of the release into `opts.out`; returns the paths written (files and folders). */
export async function writeSdks(opts: SdkOptions): Promise<string[]> {
  const schema = JSON.parse(fs.readFileSync(opts.schemaFile, "utf8")) as Schema;
  // An SDK names the plugin by the schema's version and download address: a schema of another build would
  // send every user's engine after a plugin that is not in this release.
  if (schema.version !== opts.version) throw new Error(`the schema is of version ${schema.version ?? "(none)"}, not the release's ${opts.version}`);
  if (schema.pluginDownloadURL !== opts.pluginDownloadURL) {
    throw new Error(`the schema's pluginDownloadURL is ${schema.pluginDownloadURL ?? "(none)"}, not the release's ${opts.pluginDownloadURL}`);
  }
  fs.mkdirSync(opts.out, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "prb-sdks-"));
  try {
    const [generator, dotnetJavaGenerator] = await Promise.all([sdkgen(scratch), sdkgenDotnetJava()]);
    const written = await Promise.all([
      python(generator, opts, scratch),
      nodejs(generator, opts, scratch),
      go(generator, opts, schema),
      dotnetJava(dotnetJavaGenerator, opts, "dotnet"),
      dotnetJava(dotnetJavaGenerator, opts, "java"),
    ]);
    return written.flat();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

async function python(generator: string, opts: SdkOptions, scratch: string): Promise<string[]> {
  const src = path.join(scratch, "python");
  await run(generator, [opts.schemaFile, src, "python"]);
  const venv = (await run("bash", [path.join(packageRoot(__dirname), "scripts", "python-venv.sh"), ...PYTHON_BUILD_REQUIREMENTS])).trim();
  const out = path.join(opts.out, "python");
  fs.mkdirSync(out, { recursive: true });
  await run(path.join(venv, "bin", "python"), ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, src], { cwd: src });
  return fs.readdirSync(out).map((f) => path.join(out, f));
}

async function nodejs(generator: string, opts: SdkOptions, scratch: string): Promise<string[]> {
  const src = path.join(scratch, "nodejs");
  await run(generator, [opts.schemaFile, src, "nodejs"]);
  // Compiled against this package's own @pulumi/pulumi and TypeScript, then packed without them.
  const modules = path.join(src, "node_modules");
  fs.symlinkSync(path.join(packageRoot(__dirname), "node_modules"), modules);
  await run(process.execPath, [path.join(packageRoot(__dirname), "node_modules", "typescript", "bin", "tsc"), "-p", path.join(src, "tsconfig.json")], { cwd: src });
  fs.rmSync(modules);
  const out = path.join(opts.out, "nodejs");
  fs.mkdirSync(out, { recursive: true });
  // The generated package.json points `main` at bin/; packed from bin/, where it is copied, as Pulumi's
  // providers publish theirs (the sources' .gitignore lists bin/, which npm pack would honour).
  const bin = path.join(src, "bin");
  const manifest = JSON.parse(fs.readFileSync(path.join(src, "package.json"), "utf8")) as Record<string, unknown>;
  fs.writeFileSync(path.join(bin, "package.json"), `${JSON.stringify({ ...manifest, main: "index.js", types: "index.d.ts", scripts: undefined }, null, 2)}\n`);
  for (const f of ["README.md", "LICENSE"]) {
    const from = fs.existsSync(path.join(src, f)) ? path.join(src, f) : path.join(packageRoot(__dirname), f);
    if (fs.existsSync(from)) fs.copyFileSync(from, path.join(bin, f));
  }
  const packed = (await run("npm", ["pack", "--silent", "--pack-destination", out], { cwd: bin })).trim().split("\n").pop()!;
  return [path.join(out, packed)];
}

async function go(generator: string, opts: SdkOptions, schema: Schema): Promise<string[]> {
  const importPath = schema.language?.go?.importBasePath;
  if (!importPath) throw new Error("the schema has no Go importBasePath: the Go module would have no path users can import");
  const src = path.join(opts.out, "go");
  await run(generator, [opts.schemaFile, src, "go"]);
  const mod = path.join(src, path.basename(importPath));
  const pulumiSdk = JSON.parse(fs.readFileSync(path.join(packageRoot(__dirname), "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
  fs.writeFileSync(path.join(mod, "go.mod"), `module ${importPath}\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 v${pulumiSdk}\n`);
  // The engine's go.sum lists the Pulumi Go SDK's modules at the CLI's pin; tidy keeps what this module needs.
  fs.copyFileSync(path.join(packageRoot(__dirname), "engine", "go.sum"), path.join(mod, "go.sum"));
  const env = { ...process.env, GOFLAGS: "-mod=mod", GOSUMDB: "off" };
  await run("go", ["mod", "tidy"], { cwd: mod, env });
  await run("go", ["build", "./..."], { cwd: mod, env });
  return [mod];
}

async function dotnetJava(generator: string, opts: SdkOptions, language: "dotnet" | "java"): Promise<string[]> {
  const out = path.join(opts.out, language);
  const args = [opts.schemaFile, out, language];
  if (language === "dotnet") args.push(path.join(packageRoot(__dirname), LOGO_FILE));
  await run(generator, args);
  return [out];
}
