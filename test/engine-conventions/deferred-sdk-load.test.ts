import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runStatus } from "../../release/run";

/**
 * The runner loads the SDK's runtime with Arborist and TypeScript deferred (engine-conventions/pulumiSdk.ts).
 * Checked in fresh Node.js processes on the built package, as the runner's command line loads it: what the
 * load leaves out, and that the SDK's two users of the deferred modules still work, giving what they give
 * without the deferral.
 */
const root = path.resolve(__dirname, "..", "..");
let project: string;

beforeAll(async () => {
  await run("bash", [path.join(root, "scripts", "build.sh")], { cwd: root });
  // A project with one dependency, for computeCodePaths (Arborist reads its tree).
  project = fs.mkdtempSync(path.join(os.tmpdir(), "prb-codepaths-"));
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "p", version: "1.0.0", dependencies: { dep: "1.0.0" } }));
  fs.mkdirSync(path.join(project, "node_modules", "dep"), { recursive: true });
  fs.writeFileSync(path.join(project, "node_modules", "dep", "package.json"), JSON.stringify({ name: "dep", version: "1.0.0" }));
  fs.writeFileSync(path.join(project, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
}, 120_000);
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

/** Runs `script` in a fresh process of the project's Node.js, after the deferred load when `deferred`; returns its JSON answer. */
async function inProcess(script: string, deferred: boolean): Promise<Record<string, unknown>> {
  const load = deferred ? `require(${JSON.stringify(path.join(root, "dist/engine-conventions/pulumiSdk.js"))}).loadSdkRuntimeDeferred();` : "";
  const out = await run(process.execPath, ["-e", `${load}\n(async () => { ${script} })().then((r) => process.stdout.write(JSON.stringify(r)));`], { cwd: root });
  return JSON.parse(out) as Record<string, unknown>;
}

const loadedParts = `const m = Object.keys(require.cache).map((k) => k.split(require("path").sep).join("/"));
  const parts = { arborist: "/node_modules/@npmcli/arborist/", pacote: "/node_modules/pacote/", typescript: "typescript" };
  const loaded = Object.entries(parts).filter(([, p]) => m.some((f) => f.includes(p))).map(([n]) => n);`;

describe("the SDK's runtime loaded with Arborist and TypeScript deferred", () => {
  it("is loaded, without them", async () => {
    const r = await inProcess(`${loadedParts} return { loaded, runtime: typeof require("@pulumi/pulumi").runtime.serializeFunction };`, true);
    expect(r).toEqual({ loaded: [], runtime: "function" });
    // Without the deferral the same load brings all three: the check sees them.
    const plain = await inProcess(`require("@pulumi/pulumi"); ${loadedParts} return { loaded };`, false);
    expect(plain.loaded).toEqual(["arborist", "pacote", "typescript"]);
  });

  it("serialises a closure as it does without the deferral, loading TypeScript when it needs it", async () => {
    const script = `const pulumi = require("@pulumi/pulumi");
      class Counter { constructor(start) { this.n = start; } next() { return ++this.n; } }
      const start = 41;
      const sf = await pulumi.runtime.serializeFunction(() => new Counter(start).next());
      ${loadedParts} return { text: sf.text, loaded };`;
    const [deferred, plain] = await Promise.all([inProcess(script, true), inProcess(script, false)]);
    expect(deferred.text).toBe(plain.text);
    expect(deferred.text).toContain("this.n = start");
    expect(deferred.loaded).toContain("typescript");
  });

  it("computes code paths with the real Arborist, as without the deferral; a later require gets the real module", async () => {
    const script = `process.chdir(${JSON.stringify("PROJECT")});
      const pulumi = require("@pulumi/pulumi");
      const paths = [...(await pulumi.runtime.computeCodePaths()).keys()].map((p) => p.split(require("path").sep).join("/"));
      const arborist = require("@npmcli/arborist");
      return { paths, arborist: typeof arborist === "function" && arborist.Arborist === arborist };`;
    const [deferred, plain] = await Promise.all([inProcess(script.replace("PROJECT", project), true), inProcess(script.replace("PROJECT", project), false)]);
    expect(deferred).toEqual(plain);
    expect(deferred.paths).toContain("node_modules/dep");
    expect(deferred.arborist).toBe(true);
  });

  it("is what the dynamic provider host runs on under the runner's preload, which loads it first", async () => {
    // The host prints its port, then the preload's engine watch ends it: the engine address answers nothing.
    const record = path.join(project, "record.js");
    fs.writeFileSync(record, `process.on("exit", () => require("fs").writeSync(2, "\\nloaded: " + JSON.stringify(Object.keys(require.cache)) + "\\n"));\n`);
    const host = path.join(root, "node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js");
    const preload = path.join(root, "dist/engine-conventions/exit-with-engine.js");
    const r = await runStatus(process.execPath, ["--require", record, "--require", preload, host, "127.0.0.1:1"], { cwd: project });
    expect(r.stdout.trim()).toMatch(/^\d+$/);
    const line = r.stderr.split("\n").find((l) => l.startsWith("loaded: "));
    const modules = (JSON.parse(line!.slice("loaded: ".length)) as string[]).map((m) => m.split(path.sep).join("/"));
    expect(modules.some((m) => m.endsWith("@pulumi/pulumi/runtime/index.js"))).toBe(true);
    expect(modules.some((m) => m.endsWith("cmd/dynamic-provider/index.js"))).toBe(true);
    expect(modules.filter((m) => m.includes("/@npmcli/arborist/") || m.includes("typescript"))).toEqual([]);
  });

  it("loads an SDK laid out otherwise (no Arborist, no TypeScript shim) as it is, deferring nothing", async () => {
    const sdk = path.join(project, "other-sdk");
    fs.mkdirSync(path.join(sdk, "runtime"), { recursive: true });
    fs.writeFileSync(path.join(sdk, "package.json"), JSON.stringify({ name: "@pulumi/pulumi", version: "3.0.0" }));
    fs.writeFileSync(path.join(sdk, "runtime", "index.js"), "exports.loaded = true;\n");
    const { loadSdkRuntimeDeferred } = await import("../../engine-conventions/pulumiSdk");
    loadSdkRuntimeDeferred(path.join(sdk, "package.json"));
    const entry = require.cache[path.join(sdk, "runtime", "index.js")];
    expect(entry?.exports).toEqual({ loaded: true });
    expect(Object.keys(require.cache).filter((k) => k.startsWith(sdk))).toEqual([path.join(sdk, "runtime", "index.js")]);
  });
});
