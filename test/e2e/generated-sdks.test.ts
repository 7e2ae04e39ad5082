import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { engineEnvironment } from "../../runner/environment";
import { run } from "../../release/run";
import { sdkgen, sdkgenDotnetJava } from "../../release/sdkgen";

/**
 * The SDKs `pulumi package add` would generate, from the schema the installed plugin serves (`pulumi package
 * get-schema`), by Pulumi's own code generators, checked for what users rely on (BrowserSession with its
 * secret outputs and `get`, the three functions, a Provider whose key is secret) and compiled where a
 * compiler is here: the Node.js one with TypeScript against the installed @pulumi/pulumi, the Go one with
 * `go build` against the Pulumi Go SDK of the CLI's pin, the Java one with Maven against the dependencies its
 * build.gradle names (from Maven Central). The Python one is byte-compiled here; component.test.ts installs
 * it and runs the Python example with it. The .NET one is generated only: no .NET SDK on these machines.
 */
const root = path.resolve(__dirname, "..", "..");
let base: string;
let schemaFile: string;
let generator: string;
let dotnetJavaGenerator: string;

beforeAll(async () => {
  const { projectDir, pulumiBin } = inject("e2e");
  base = fs.mkdtempSync(path.join(projectDir, "sdks-"));
  const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir: path.join(base, "state"), workDir: base }) };
  schemaFile = path.join(base, "schema.json");
  const plugin = path.join(projectDir, "node_modules", ".bin", "pulumi-resource-remote-browser");
  fs.writeFileSync(schemaFile, await run(pulumiBin, ["package", "get-schema", plugin], { cwd: base, env }));
  [generator, dotnetJavaGenerator] = await Promise.all([sdkgen(base), sdkgenDotnetJava()]);
  // The generators' first build, on cold Go caches, is most of this (see component.test.ts).
}, 1_200_000);

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");

describe.concurrent("SDKs generated from the served schema", () => {
  it("Node.js: BrowserSession with its share link secret, the three functions and a Provider whose key is secret; compiles", async () => {
    const { projectDir } = inject("e2e");
    // Inside the e2e project, whose node_modules hold @pulumi/pulumi of the cell.
    const dir = path.join(base, "nodejs");
    await run(generator, [schemaFile, dir, "nodejs"]);
    expect(read(dir, "browserSession.ts")).toMatch(/additionalSecretOutputs: \["shareUrl", "shareUrlPath"\]/);
    expect(read(dir, "browserSession.ts")).toMatch(/public static get\(name: string, id: pulumi\.Input<pulumi\.ID>/);
    for (const fn of ["getImages", "getLocations", "getUsage"]) expect(read(dir, "index.ts")).toContain(fn);
    expect(read(dir, "provider.ts")).toMatch(/resourceInputs\["apiKey"\] = args\?\.apiKey \? pulumi\.secret\(args\.apiKey\)/);
    expect(read(dir, "getUsage.ts")).toMatch(/readonly pools: outputs\.UsagePool\[\]/);
    fs.symlinkSync(path.join(projectDir, "node_modules"), path.join(dir, "node_modules"));
    await run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(dir, "tsconfig.json")], { cwd: dir });
    expect(fs.existsSync(path.join(dir, "bin", "browserSession.js"))).toBe(true);
  }, 300_000);

  it("Go: BrowserSession with its share link secret, the three functions and a Provider whose key is secret; builds", async () => {
    const dir = path.join(base, "go");
    await run(generator, [schemaFile, dir, "go"]);
    const pkg = path.join(dir, "remotebrowser");
    expect(read(pkg, "browserSession.go")).toMatch(/pulumi\.AdditionalSecretOutputs\(\[\]string\{\s*"shareUrl",\s*"shareUrlPath",/);
    expect(read(pkg, "browserSession.go")).toMatch(/func GetBrowserSession\(/);
    for (const fn of ["GetImages", "GetLocations", "GetUsage"]) expect(read(pkg, `${fn[0]!.toLowerCase()}${fn.slice(1)}.go`)).toContain(`func ${fn}(`);
    expect(read(pkg, "provider.go")).toMatch(/args\.ApiKey = pulumi\.ToSecret\(args\.ApiKey\)/);
    // The generated code imports its own package under the generator's default path, and the Pulumi Go SDK of
    // the CLI's pin, whose modules the engine's go.sum lists.
    const importPath = /"([^"]+)\/internal"/.exec(read(pkg, "browserSession.go"))![1]!;
    fs.writeFileSync(path.join(pkg, "go.mod"), `module ${importPath}\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.248.0\n`);
    fs.copyFileSync(path.join(root, "engine", "go.sum"), path.join(pkg, "go.sum"));
    await run("go", ["build", "./..."], { cwd: pkg, env: { ...process.env, GOFLAGS: "-mod=mod", GOSUMDB: "off" } });
  }, 600_000);

  it("Python: BrowserSession with its share link secret and get, the three functions and a Provider whose key is secret; byte-compiles", async () => {
    const dir = path.join(base, "python");
    await run(generator, [schemaFile, dir, "python"]);
    const pkg = path.join(dir, "pulumi_remote_browser");
    expect(read(pkg, "browser_session.py")).toContain(`pulumi.ResourceOptions(additional_secret_outputs=["shareUrl", "shareUrlPath"])`);
    expect(read(pkg, "browser_session.py")).toMatch(/def get\(resource_name: str,\s+id: pulumi\.Input\[str\]/);
    for (const fn of ["get_images", "get_locations", "get_usage"]) expect(read(pkg, "__init__.py")).toContain(`from .${fn} import *`);
    expect(read(pkg, "provider.py")).toContain(`__props__.__dict__["api_key"] = None if api_key is None else pulumi.Output.secret(api_key)`);
    expect(read(pkg, "get_usage.py")).toMatch(/def pools\(self\) -> Sequence\['outputs\.UsagePool'\]/);
    await run("python3", ["-m", "compileall", "-q", pkg], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "" } });
  }, 300_000);

  // The .NET generator of the .NET language host (pulumi-language-dotnet), as `pulumi package add` runs it.
  // Not compiled: these machines have no .NET SDK (Debian has none, and NuGet is not reachable).
  it(".NET: BrowserSession with its share link secret and Get, the three functions and a Provider whose key is secret; generated only", async () => {
    const dir = path.join(base, "dotnet");
    await run(dotnetJavaGenerator, [schemaFile, dir, "dotnet"]);
    expect(read(dir, "BrowserSession.cs")).toMatch(/AdditionalSecretOutputs =\s*\{\s*"shareUrl",\s*"shareUrlPath",\s*\}/);
    expect(read(dir, "BrowserSession.cs")).toContain("public static BrowserSession Get(string name, Input<string> id, CustomResourceOptions? options = null)");
    for (const fn of ["GetImages", "GetLocations", "GetUsage"]) {
      expect(read(dir, `${fn}.cs`)).toContain(`public static Task<${fn}Result> InvokeAsync(InvokeOptions? options = null)`);
    }
    // A key given to the provider is wrapped in a secret output before it leaves the program.
    expect(read(dir, "Provider.cs")).toMatch(/public Input<string>\? ApiKey\s*\{\s*get => _apiKey;\s*set\s*\{\s*var emptySecret = Output\.CreateSecret\(0\);/);
    expect(read(dir, "Outputs/UsagePool.cs")).toContain("public readonly int RunningSessionsRemaining;");
    expect(read(dir, "Pulumi.RemoteBrowser.csproj")).toMatch(/<PackageReference Include="Pulumi" Version="[^"]+" \/>/);
  }, 300_000);

  // The Java generator of the Java language host (pulumi-java), as `pulumi package add` runs it; built with
  // Maven (Gradle, which the generated build.gradle is for, is not here) from a pom with the same dependencies.
  it("Java: BrowserSession with its share link secret and get, the three functions and the Provider; all but ReviewSessions compiles", async () => {
    const dir = path.join(base, "java");
    await run(dotnetJavaGenerator, [schemaFile, dir, "java"]);
    const src = path.join(dir, "src", "main", "java", "com", "pulumi", "remotebrowser");
    expect(read(src, "BrowserSession.java")).toMatch(/\.additionalSecretOutputs\(List\.of\(\s*"shareUrl",\s*"shareUrlPath"\s*\)\)/);
    expect(read(src, "BrowserSession.java")).toMatch(/public static BrowserSession get\(java\.lang\.String name, Output<java\.lang\.String> id,/);
    for (const fn of ["getImages", "getLocations", "getUsage"]) {
      expect(read(src, "RemotebrowserFunctions.java")).toContain(`public static Output<G${fn.slice(1)}Result> ${fn}()`);
    }
    // Java's generator leaves the provider's secret settings as plain Outputs (the plugin stores them as
    // secrets in any case: native/providerConfig.ts, CheckConfig).
    expect(read(src, "ProviderArgs.java")).toMatch(/@Import\(name="apiKey"\)\s+private @Nullable Output<String> apiKey;/);
    expect(read(path.join(src, "outputs"), "GetUsageResult.java")).toMatch(/private List<UsagePool> pools;/);

    const gradle = read(dir, "build.gradle");
    const deps = [...gradle.matchAll(/^\s*implementation\("([^:"]+):([^:"]+):([^:"]+)"\)/gm)].map((m) => ({ group: m[1]!, artifact: m[2]!, version: m[3]! }));
    expect(deps.map((d) => d.artifact)).toContain("pulumi");
    const release = /JavaLanguageVersion\.of\((\d+)\)/.exec(gradle)![1]!;
    fs.writeFileSync(
      path.join(dir, "pom.xml"),
      `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.pulumi</groupId><artifactId>remote-browser</artifactId><version>0.0.0</version>
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
    await run("mvn", ["-v"])
      .catch(() => (process.getuid?.() === 0 ? run("bash", [path.join(root, "scripts", "apt-install.sh"), "maven", "default-jdk-headless"]) : ""))
      .then(() => run("mvn", ["-v"]))
      .catch((e: Error) => {
        throw new Error(`Maven (mvn) with a JDK >= ${release} compiles the generated Java SDK: install them (Debian: apt-get install -y maven default-jdk-headless). ${e.message}`);
      });
    const mvn = () => run("mvn", ["-B", "-q", "compile"], { cwd: dir });
    // ReviewSessions does not compile: its secret output becomes additionalSecretOutputs on
    // ComponentResourceOptions, which the Java SDK does not have. Every error is that one.
    const failed = await mvn().then(
      () => "",
      (e: Error) => e.message,
    );
    const errors = [...failed.matchAll(/^\[ERROR\] (\/\S+\.java):\[\d+,\d+\] (.*)$/gm)].map((m) => `${path.basename(m[1]!)}: ${m[2]}`);
    expect([...new Set(errors)]).toEqual(["ReviewSessions.java: cannot find symbol"]);
    expect(failed).toMatch(/symbol: +method additionalSecretOutputs\(java\.util\.List<java\.lang\.String>\)\s+location: class com\.pulumi\.resources\.ComponentResourceOptions\.Builder/);
    // Everything else compiles.
    fs.rmSync(path.join(src, "ReviewSessions.java"));
    await mvn();
    for (const cls of ["BrowserSession", "Provider", "RemotebrowserFunctions", "ReviewSessionsArgs"]) {
      expect(fs.existsSync(path.join(dir, "target", "classes", "com", "pulumi", "remotebrowser", `${cls}.class`)), cls).toBe(true);
    }
  }, 300_000);
});
