import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LOGO_FILE } from "../../plugin/packageSchema";
import { run } from "../../release/run";
import { writeSdks } from "../../release/sdks";
import { engineEnvironment } from "../../runner/environment";
import { NATIVE, typescriptSnippets } from "../docs/markdown";
import { cacheRoot, cachedFolder, filesOf, keyOf } from "../helpers/input-cache";

/**
 * The SDKs of a release (release/sdks.ts, what `npm run release` writes), from the schema the installed
 * plugin serves (`pulumi package get-schema`), by Pulumi's own code generators: checked for what users rely
 * on (BrowserSession with its secret outputs and `get`, the four functions, a Provider whose key is secret),
 * for the plugin each names (the schema's version and pluginDownloadURL, so that the engine fetches the
 * plugin by itself), and installed or compiled where a toolchain is here: the Node.js tarball installed by
 * npm into a fresh project and a program compiled against it; the Go module required by its own import path
 * from another module and built; the Python wheel installed by pip into a fresh virtualenv and imported
 * (component.test.ts runs Python programs with the same generator); the Java sources compiled by Maven with
 * the dependencies their build.gradle names. The .NET sources are generated only: no .NET SDK here. The
 * registry page's examples (docs/_index.md) are compiled (TypeScript, Go, Java) or run under mocks (Python).
 */
const root = path.resolve(__dirname, "..", "..");
let base: string;
let out: string;
let schema: { version: string; pluginDownloadURL: string };
let written: string[];

beforeAll(async () => {
  const { projectDir, pulumiBin } = inject("e2e");
  base = fs.mkdtempSync(path.join(projectDir, "sdks-"));
  const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir: path.join(base, "state"), workDir: base }) };
  const schemaFile = path.join(base, "schema.json");
  const plugin = path.join(projectDir, "node_modules", ".bin", "pulumi-resource-remote-browser");
  fs.writeFileSync(schemaFile, await run(pulumiBin, ["package", "get-schema", plugin], { cwd: base, env }));
  schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
  out = path.join(base, "release");
  // The generators' first build, on cold Go caches, is most of this (see component.test.ts).
  const made = await sdksOf(schemaFile);
  fs.cpSync(made, out, { recursive: true });
  written = (JSON.parse(fs.readFileSync(path.join(made, WRITTEN), "utf8")) as string[]).map((f) => path.join(out, f));
  for (const mark of [WRITTEN, ".complete"]) fs.rmSync(path.join(out, mark));
}, 1_200_000);

/** What writeSdks reads besides the schema: its own code and generators, their module pins, the build tools' pins, the files it packs. */
const SDK_INPUTS = [
  "release",
  "engine/go.mod",
  "engine/go.sum",
  "scripts/python-venv.sh",
  "package.json",
  "package-lock.json",
  "README.md",
  "LICENSE",
  LOGO_FILE,
  "plugin/packageSchema.ts",
  "plugin/identity.ts",
];
/** The list of what writeSdks returned, kept in the cached folder (relative to it). */
const WRITTEN = ".written.json";

/**
 * The SDKs writeSdks makes of `schemaFile`, made once per change of the schema or of writeSdks' inputs and
 * kept in the cache (as release-build.ts keeps the release): its compilation of the Node.js SDK, the Python
 * build and the generators' runs were a good part of this file's CPU, and made the same files every run.
 */
async function sdksOf(schemaFile: string): Promise<string> {
  const key = keyOf(fs.readFileSync(schemaFile), process.version, ...filesOf(root, SDK_INPUTS));
  const { dir } = await cachedFolder(cacheRoot("e2e-sdks"), key, async (tmp) => {
    const made = await writeSdks({ schemaFile, version: schema.version, pluginDownloadURL: schema.pluginDownloadURL, out: tmp });
    fs.writeFileSync(path.join(tmp, WRITTEN), JSON.stringify(made.map((f) => path.relative(tmp, f))));
  });
  return dir;
}

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/**
 * A fresh virtualenv into which pip installed `wheel` (and what it requires), kept in the cache by the hash of
 * the wheel and the interpreter: the cached SDK's wheel is the same file while the SDK is, and making the
 * virtualenv and resolving the wheel's dependencies were a good part of the Python test's CPU. Made under a
 * folder of its own and renamed when complete (test/helpers/input-cache.ts); only its `bin/python` is used
 * (pip's scripts name the folder they were made in).
 */
async function wheelVenv(wheel: string): Promise<string> {
  const interpreter = await run("python3", ["-c", "import sys; print(sys.version)"]);
  const { dir } = await cachedFolder(cacheRoot("e2e-wheel-venv"), keyOf(interpreter, fs.readFileSync(wheel)), async (tmp) => {
    await run("python3", ["-m", "venv", tmp]);
    await run(path.join(tmp, "bin", "python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel]);
  });
  return dir;
}

/** What the Java test's two Maven compiles gave: the first one's errors, and the classes of the second. */
interface JavaCompiled {
  failed: string;
  classes: string[];
}

/**
 * The Java test's compiles, kept in the cache by the hash of everything they read: the sources and pom in
 * `dir` (the cached SDK's, so the same while the SDK is), the registry page's example, and Maven's and the
 * JDK's versions (`mvn -v`). Two Maven runs on a JVM each were a good part of this file's CPU, and gave the
 * same result for the same inputs every run. Only a run whose result was complete is kept.
 */
async function javaCompiled(dir: string, example: string, maven: string, compile: () => Promise<JavaCompiled>): Promise<JavaCompiled> {
  const key = keyOf(maven, example, ...filesOf(dir, ["."]));
  const { dir: entry } = await cachedFolder(cacheRoot("e2e-java"), key, async (tmp) => {
    fs.writeFileSync(path.join(tmp, "compiled.json"), JSON.stringify(await compile()));
  });
  return JSON.parse(fs.readFileSync(path.join(entry, "compiled.json"), "utf8")) as JavaCompiled;
}

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
/** The example of `language` on the registry's overview page (docs/_index.md), which the tests compile. */
function docsExample(language: string): string {
  const page = fs.readFileSync(path.join(root, "docs", "_index.md"), "utf8");
  const m = new RegExp(`\\{\\{% choosable language ${language} %\\}\\}\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!m) throw new Error(`docs/_index.md has no ${language} example`);
  return m[1]!;
}
/** What the engine reads to acquire the plugin: `pulumi-plugin.json`, or the npm package's `pulumi` section. */
const names = (plugin: unknown) => expect(plugin).toEqual({ resource: true, name: "remote-browser", version: schema.version, server: schema.pluginDownloadURL });

it("the release's SDKs: a wheel and an sdist, an npm tarball, the Go module, the .NET and the Java sources", () => {
  const v = schema.version;
  expect(written.map((f) => path.relative(out, f)).sort()).toEqual(
    ["dotnet", "go/remotebrowser", "java", `nodejs/remote-browser-pulumi-${v}.tgz`, `python/pulumi_remote_browser-${v}-py3-none-any.whl`, `python/pulumi_remote_browser-${v}.tar.gz`].sort(),
  );
  expect(schema.pluginDownloadURL).toBe("github://api.github.com/remote-browser/pulumi-remote-browser");
});

describe.concurrent("the release's SDKs", () => {
  it("Node.js: BrowserSession with its share link secret, the four functions and a Provider whose key is secret; names the plugin; installs from its tarball and a program compiles against it", async () => {
    const tarball = path.join(out, "nodejs", `remote-browser-pulumi-${schema.version}.tgz`);
    const pkg = path.join(base, "nodejs-package");
    fs.mkdirSync(pkg);
    await run("tar", ["-xzf", tarball, "-C", pkg]);
    const dir = path.join(pkg, "package");
    const manifest = JSON.parse(read(dir, "package.json"));
    expect(manifest).toMatchObject({ name: "@remote-browser/pulumi", version: schema.version, main: "index.js", types: "index.d.ts" });
    names(manifest.pulumi);
    expect(read(dir, "browserSession.js")).toMatch(/additionalSecretOutputs: \["shareUrl", "shareUrlPath"\]/);
    expect(read(dir, "browserSession.d.ts")).toMatch(/static get\(name: string, id: pulumi\.Input<pulumi\.ID>/);
    for (const fn of ["getImages", "getLocations", "getUsage", "getSessions"]) expect(read(dir, "index.d.ts")).toContain(fn);
    expect(read(dir, "getSessions.d.ts")).toMatch(/states\?: string\[\]/);
    expect(read(dir, "getSessions.d.ts")).toMatch(/readonly sessions: outputs\.ListedSession\[\]/);
    expect(read(dir, "provider.js")).toMatch(/resourceInputs\["apiKey"\] = \(args\?\.apiKey \? pulumi\.secret\(args\.apiKey\) : undefined\) \?\? utilities\.getEnv\("REMOTE_BROWSER_API_KEY"\)/);
    expect(read(dir, "getUsage.d.ts")).toMatch(/readonly pools: outputs\.UsagePool\[\]/);

    // A user's project: npm installs the tarball beside the Pulumi SDK the repository develops with.
    const pulumiVersion = JSON.parse(read(path.join(root, "node_modules", "@pulumi", "pulumi"), "package.json")).version;
    const sources: Record<string, string> = {
      "index.ts": `import * as pulumi from "@pulumi/pulumi";
import * as rb from "@remote-browser/pulumi";
const account = new rb.Provider("account", { apiKey: pulumi.secret("k"), apiVersion: rb.ApiVersion.V8 });
const session = new rb.BrowserSession("s", { browser: "chrome", egress: rb.Egress.Residential }, { provider: account });
export const link: pulumi.Output<string | undefined> = session.shareUrl;
export const vm: pulumi.Output<string> = session.vmId;
export const images = rb.getImagesOutput().images.apply((i) => i.map((x) => x.id));
`,
    };
    // Every TypeScript example of the user's pages that imports this SDK compiles too (the overview's
    // among them); those of the dynamic package are compiled and run by test/docs/snippets.test.ts.
    const examples = typescriptSnippets().filter((s) => s.code.includes(`from "${NATIVE}"`));
    expect(examples.map((s) => s.where)).toEqual(expect.arrayContaining([expect.stringMatching(/^docs\/_index\.md:/)]));
    expect(examples.some((s) => s.code === docsExample("typescript"))).toBe(true);
    examples.forEach((s, i) => (sources[`docs-example-${i}.ts`] = `// ${s.where}\n${s.code}`));
    sources["tsconfig.json"] = JSON.stringify({
      compilerOptions: { strict: true, target: "ES2020", module: "commonjs", moduleResolution: "bundler", esModuleInterop: true, outDir: "bin", types: [] },
      files: Object.keys(sources),
    });
    // Installed and compiled once per change of what they read (the tarball, the versions, the sources), kept
    // in the cache (test/helpers/input-cache.ts): npm's install and the compilation against @pulumi/pulumi's
    // types were a good part of this file's CPU, and gave the same project every run.
    const typescript = JSON.parse(read(path.join(root, "node_modules", "typescript"), "package.json")).version;
    const key = keyOf(fs.readFileSync(tarball), pulumiVersion, typescript, process.version, ...Object.entries(sources).flat());
    const { dir: project } = await cachedFolder(cacheRoot("e2e-nodejs-project"), key, async (tmp) => {
      fs.writeFileSync(
        path.join(tmp, "package.json"),
        JSON.stringify({ name: "user-project", private: true, dependencies: { "@pulumi/pulumi": pulumiVersion, "@remote-browser/pulumi": `file:${tarball}` } }),
      );
      await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: tmp });
      for (const [name, text] of Object.entries(sources)) fs.writeFileSync(path.join(tmp, name), text);
      await run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(tmp, "tsconfig.json")], { cwd: tmp });
    });
    expect(read(path.join(project, "bin"), "index.js")).toContain("@remote-browser/pulumi");
  }, 300_000);

  it("Go: BrowserSession with its share link secret, the four functions and a Provider whose key is secret; names the plugin; another module builds against it by its import path", async () => {
    const pkg = path.join(out, "go", "remotebrowser");
    const importPath = "github.com/remote-browser/pulumi-remote-browser/sdk/go/remotebrowser";
    expect(read(pkg, "go.mod")).toMatch(new RegExp(`^module ${importPath.replace(/\./g, "\\.")}$`, "m"));
    names(JSON.parse(read(pkg, "pulumi-plugin.json")));
    expect(read(pkg, "browserSession.go")).toMatch(/pulumi\.AdditionalSecretOutputs\(\[\]string\{\s*"shareUrl",\s*"shareUrlPath",/);
    expect(read(pkg, "browserSession.go")).toMatch(/func GetBrowserSession\(/);
    expect(read(pkg, "browserSession.go")).toContain(`"${importPath}/internal"`);
    for (const fn of ["GetImages", "GetLocations", "GetUsage", "GetSessions"]) expect(read(pkg, `${fn[0]!.toLowerCase()}${fn.slice(1)}.go`)).toContain(`func ${fn}(`);
    expect(read(pkg, "provider.go")).toMatch(/args\.ApiKey = pulumi\.ToSecret\(args\.ApiKey\)/);
    // A user's module requires it at the release's version (here replaced by the folder, as the proxy would serve it).
    const user = path.join(base, "go-user");
    fs.mkdirSync(user);
    fs.writeFileSync(path.join(user, "go.mod"), `module example.test/user\n\ngo 1.24\n\nrequire ${importPath} v${schema.version}\n\nreplace ${importPath} => ${pkg}\n`);
    fs.writeFileSync(path.join(user, "go.sum"), read(pkg, "go.sum"));
    fs.writeFileSync(
      path.join(user, "main.go"),
      `package main

import (
	"${importPath}"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		account, err := remotebrowser.NewProvider(ctx, "account", &remotebrowser.ProviderArgs{ApiVersion: remotebrowser.ApiVersionV8})
		if err != nil {
			return err
		}
		session, err := remotebrowser.NewBrowserSession(ctx, "s", &remotebrowser.BrowserSessionArgs{Browser: pulumi.String("chrome"), Egress: remotebrowser.EgressResidential}, pulumi.Provider(account))
		if err != nil {
			return err
		}
		ctx.Export("link", session.ShareUrl)
		_, err = remotebrowser.GetImages(ctx)
		return err
	})
}
`,
    );
    // The registry page's example builds too.
    fs.mkdirSync(path.join(user, "docs"));
    fs.writeFileSync(path.join(user, "docs", "main.go"), docsExample("go"));
    const env = { ...process.env, GOFLAGS: "-mod=mod", GOSUMDB: "off" };
    await run("go", ["build", "-o", path.join(user, "user"), "."], { cwd: user, env });
    await run("go", ["build", "-o", path.join(user, "docs-example"), "./docs"], { cwd: user, env });
    expect(fs.existsSync(path.join(user, "user"))).toBe(true);
    expect(fs.existsSync(path.join(user, "docs-example"))).toBe(true);
  }, 600_000);

  it("Python: BrowserSession with its share link secret and get, the four functions and a Provider whose key is secret; the wheel and sdist name the plugin; pip installs the wheel into a fresh virtualenv", async () => {
    const wheel = path.join(out, "python", `pulumi_remote_browser-${schema.version}-py3-none-any.whl`);
    const unpacked = path.join(base, "python-wheel");
    await run("python3", ["-m", "zipfile", "-e", wheel, unpacked]);
    const pkg = path.join(unpacked, "pulumi_remote_browser");
    names(JSON.parse(read(pkg, "pulumi-plugin.json")));
    expect(read(pkg, "browser_session.py")).toContain(`pulumi.ResourceOptions(additional_secret_outputs=["shareUrl", "shareUrlPath"])`);
    expect(read(pkg, "browser_session.py")).toMatch(/def get\(resource_name: str,\s+id: pulumi\.Input\[str\]/);
    for (const fn of ["get_images", "get_locations", "get_usage", "get_sessions"]) expect(read(pkg, "__init__.py")).toContain(`from .${fn} import *`);
    expect(read(pkg, "get_sessions.py")).toMatch(
      /def get_sessions\(max_age_minutes: Optional\[_builtins\.float\] = None,\s+min_age_minutes: Optional\[_builtins\.float\] = None,\s+states: Optional\[Sequence\[_builtins\.str\]\] = None,/,
    );
    expect(read(pkg, "provider.py")).toContain(`__props__.__dict__["api_key"] = None if api_key is None else pulumi.Output.secret(api_key)`);
    expect(read(pkg, "get_usage.py")).toMatch(/def pools\(self\) -> Sequence\['outputs\.UsagePool'\]/);
    const sdist = await run("tar", ["-tzf", path.join(out, "python", `pulumi_remote_browser-${schema.version}.tar.gz`)]);
    expect(sdist).toContain(`pulumi_remote_browser-${schema.version}/pulumi_remote_browser/pulumi-plugin.json`);
    const venv = await wheelVenv(wheel);
    const shown = await run(path.join(venv, "bin", "python"), [
      "-c",
      "import pulumi_remote_browser as rb, importlib.metadata as m; print(m.version('pulumi-remote-browser'), rb.BrowserSession.__name__, rb.ApiVersion.V7.value, rb.Egress.RESIDENTIAL.value)",
    ]);
    expect(shown.trim()).toBe(`${schema.version} BrowserSession v7 residential`);
    // The registry page's example runs under the Python SDK's mocks against the installed wheel.
    const example = path.join(base, "docs_example.py");
    fs.writeFileSync(example, docsExample("python"));
    const answers = { "remote-browser:index:getImages": { images: [{ id: "chrome", name: "Chrome", enabled: true }] } };
    const registered = await run(path.join(venv, "bin", "python"), [path.join(__dirname, "programs", "python-mocks", "run.py"), example, JSON.stringify(answers)]);
    expect(JSON.parse(registered)).toEqual(["remote-browser:index:BrowserSession"]);
  }, 600_000);

  // The .NET generator of the .NET language host (pulumi-language-dotnet), as `pulumi package add` runs it.
  // Not compiled: these machines have no .NET SDK (Debian has none, and NuGet is not reachable).
  it(".NET: BrowserSession with its share link secret and Get, the four functions and a Provider whose key is secret; names the plugin; the repository's logo; generated only", () => {
    const dir = path.join(out, "dotnet");
    names(JSON.parse(read(dir, "pulumi-plugin.json")));
    expect(read(dir, "version.txt")).toBe(schema.version);
    expect(read(dir, "BrowserSession.cs")).toMatch(/namespace RemoteBrowser\.Pulumi\b/);
    expect(read(dir, "BrowserSession.cs")).toMatch(/AdditionalSecretOutputs =\s*\{\s*"shareUrl",\s*"shareUrlPath",\s*\}/);
    expect(read(dir, "BrowserSession.cs")).toContain("public static BrowserSession Get(string name, Input<string> id, CustomResourceOptions? options = null)");
    for (const fn of ["GetImages", "GetLocations", "GetUsage"]) {
      expect(read(dir, `${fn}.cs`)).toContain(`public static Task<${fn}Result> InvokeAsync(InvokeOptions? options = null)`);
    }
    // A key given to the provider is wrapped in a secret output before it leaves the program.
    expect(read(dir, "Provider.cs")).toMatch(/public Input<string>\? ApiKey\s*\{\s*get => _apiKey;\s*set\s*\{\s*var emptySecret = Output\.CreateSecret\(0\);/);
    expect(read(dir, "GetSessions.cs")).toContain("public static Task<GetSessionsResult> InvokeAsync(GetSessionsArgs? args = null, InvokeOptions? options = null)");
    expect(read(dir, "Outputs/UsagePool.cs")).toContain("public readonly int RunningSessionsRemaining;");
    const csproj = read(dir, "RemoteBrowser.Pulumi.csproj");
    expect(csproj).toMatch(/<PackageReference Include="Pulumi" Version="[^"]+" \/>/);
    expect(csproj).toContain(`<Version>${schema.version}</Version>`);
    // The package's icon is the repository's logo, read from the file and not downloaded.
    expect(fs.readFileSync(path.join(dir, "logo.png")).equals(fs.readFileSync(path.join(root, LOGO_FILE)))).toBe(true);
  });

  // The Java generator of the Java language host (pulumi-java), as `pulumi package add` runs it; built with
  // Maven (Gradle, which the generated build.gradle is for, is not here) from a pom with the same dependencies.
  it("Java: BrowserSession with its share link secret and get, the four functions and the Provider; all but ReviewSessions compiles", async () => {
    // Compiled in a copy: Maven writes target/ beside the sources.
    const dir = path.join(base, "java");
    fs.cpSync(path.join(out, "java"), dir, { recursive: true });
    const src = path.join(dir, "src", "main", "java", "io", "github", "remotebrowser", "remotebrowser");
    expect(read(src, "BrowserSession.java")).toMatch(/\.additionalSecretOutputs\(List\.of\(\s*"shareUrl",\s*"shareUrlPath"\s*\)\)/);
    expect(read(src, "BrowserSession.java")).toMatch(/public static BrowserSession get\(java\.lang\.String name, Output<java\.lang\.String> id,/);
    for (const fn of ["getImages", "getLocations", "getUsage"]) {
      expect(read(src, "RemotebrowserFunctions.java")).toContain(`public static Output<G${fn.slice(1)}Result> ${fn}()`);
    }
    // Java's generator leaves the provider's secret settings as plain Outputs (the plugin stores them as
    // secrets in any case: plugin/providerConfig.ts, CheckConfig).
    expect(read(src, "RemotebrowserFunctions.java")).toContain("public static Output<GetSessionsResult> getSessions(GetSessionsArgs args)");
    expect(read(src, "ProviderArgs.java")).toMatch(/@Import\(name="apiKey"\)\s+private @Nullable Output<String> apiKey;/);
    expect(read(path.join(src, "outputs"), "GetUsageResult.java")).toMatch(/private List<UsagePool> pools;/);

    const gradle = read(dir, "build.gradle");
    // The version and the plugin's address go into the jar's plugin.json at build time.
    expect(gradle).toContain(`? "${schema.version}"`);
    expect(gradle).toContain(`server "${schema.pluginDownloadURL}"`);
    expect(gradle).toMatch(/groupId = "io\.github\.remotebrowser"/);
    const deps = [...gradle.matchAll(/^\s*implementation\("([^:"]+):([^:"]+):([^:"]+)"\)/gm)].map((m) => ({ group: m[1]!, artifact: m[2]!, version: m[3]! }));
    expect(deps.map((d) => d.artifact)).toContain("pulumi");
    const release = /JavaLanguageVersion\.of\((\d+)\)/.exec(gradle)![1]!;
    fs.writeFileSync(
      path.join(dir, "pom.xml"),
      `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.github.remotebrowser</groupId><artifactId>remote-browser</artifactId><version>0.0.0</version>
  <properties>
    <maven.compiler.source>${release}</maven.compiler.source><maven.compiler.target>${release}</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
${deps.map((d) => `    <dependency><groupId>${d.group}</groupId><artifactId>${d.artifact}</artifactId><version>${d.version}</version></dependency>`).join("\n")}
  </dependencies>
</project>
`,
    );
    // Maven and a JDK come from Debian's packages when missing (as root; scripts/apt-install.sh), as the
    // PostgreSQL server and python3-venv do: the README's test command installs what it needs.
    const maven = await run("mvn", ["-v"])
      .catch(async () => {
        if (process.getuid?.() === 0) await run("bash", [path.join(root, "scripts", "apt-install.sh"), "maven", "default-jdk-headless"]);
        return run("mvn", ["-v"]);
      })
      .catch((e: Error) => {
        throw new Error(`Maven (mvn) with a JDK >= ${release} compiles the generated Java SDK: install them (Debian: apt-get install -y maven default-jdk-headless). ${e.message}`);
      });
    const example = docsExample("java");
    const compiled = await javaCompiled(dir, example, maven, async () => {
      const mvn = () => run("mvn", ["-B", "-q", "compile"], { cwd: dir });
      // ReviewSessions does not compile: its secret output becomes additionalSecretOutputs on
      // ComponentResourceOptions, which the Java SDK does not have.
      const failed = await mvn().then(
        () => "",
        (e: Error) => e.message,
      );
      // Everything else compiles.
      fs.rmSync(path.join(src, "ReviewSessions.java"));
      // With the registry page's example beside it.
      const app = path.join(dir, "src", "main", "java", "myproject");
      fs.mkdirSync(app, { recursive: true });
      fs.writeFileSync(path.join(app, "App.java"), example);
      await mvn();
      const classes = path.join(dir, "target", "classes");
      return { failed, classes: (fs.readdirSync(classes, { recursive: true }) as string[]).filter((f) => f.endsWith(".class")).sort() };
    });
    // Every error of the first compile is that one.
    const errors = [...compiled.failed.matchAll(/^\[ERROR\] (\/\S+\.java):\[\d+,\d+\] (.*)$/gm)].map((m) => `${path.basename(m[1]!)}: ${m[2]}`);
    expect([...new Set(errors)]).toEqual(["ReviewSessions.java: cannot find symbol"]);
    expect(compiled.failed).toMatch(/symbol: +method additionalSecretOutputs\(java\.util\.List<java\.lang\.String>\)\s+location: class com\.pulumi\.resources\.ComponentResourceOptions\.Builder/);
    for (const cls of ["BrowserSession", "Provider", "RemotebrowserFunctions", "ReviewSessionsArgs"]) {
      expect(compiled.classes, cls).toContain(path.join("io", "github", "remotebrowser", "remotebrowser", `${cls}.class`));
    }
    expect(compiled.classes).toContain(path.join("myproject", "App.class"));
  }, 300_000);
});
