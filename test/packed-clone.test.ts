import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteBrowserComponentProvider } from "../plugin/provider";
import { run, runStatus } from "../release/run";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC client, required without types */

/**
 * `npm pack` and `npm publish` as a maintainer runs them in a fresh clone, where nothing is built: the
 * tarball must carry the compiled package, and its plugin must start. test/package.test.ts lists what the
 * working tree packs, where dist/ is built already; this file starts from the sources alone.
 *
 * The clone is of the working tree as git would commit it (`git stash create`, HEAD when nothing is
 * changed): tracked files only, without dist/ or anything else that is ignored. Its dependencies are the
 * repository's own installed tree, linked rather than downloaded again: the same lockfile, and all `npm
 * pack` needs of them is the build's devDependencies. The tarball is then installed as a user's project
 * installs it (`npm install <tarball>`; its dependencies from npm's cache where it has them), beside the
 * project's own `@pulumi/pulumi` (a peer dependency: here the repository's copy, linked in).
 */
const root = path.resolve(__dirname, "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; version: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- generated gRPC and protobuf modules have no types and no ES exports
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- generated gRPC and protobuf modules have no types and no ES exports
const provproto = require("@pulumi/pulumi/proto/provider_pb");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- generated gRPC and protobuf modules have no types and no ES exports
const emptyproto = require("google-protobuf/google/protobuf/empty_pb");

let base: string;
let clone: string;
let packOutput: string;
let packed: string[];
let project: string;
/** Refuses every connection: the engine's address the plugin watches, and a registry that answers nothing. */
let refuser: net.Server;
let refuserAddress: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  refuser = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refuser.listen(0, "127.0.0.1", resolve));
  refuserAddress = `127.0.0.1:${(refuser.address() as net.AddressInfo).port}`;

  base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-packed-clone-"));
  clone = path.join(base, "clone");
  // A commit needs an author, which a CI machine may not have configured.
  // Asked again after a failure: it refreshes the index, which fails, saying nothing and with exit 1, while
  // another git process of the run holds the repository's index lock (seen once in a whole suite's run).
  const stash = () => run("git", ["-c", "user.name=packed-clone", "-c", "user.email=packed-clone@localhost", "stash", "create"], { cwd: root });
  const snapshot = (await stash().catch(() => new Promise<void>((r) => setTimeout(r, 2000)).then(stash))).trim() || "HEAD";
  // --shared: the clone reads the repository's objects, where the snapshot's commit is (no ref names it).
  await run("git", ["clone", "--quiet", "--shared", "--no-checkout", root, clone]);
  await run("git", ["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", snapshot], { cwd: clone });
  expect(fs.existsSync(path.join(clone, "dist")), "the clone has no build").toBe(false);
  fs.symlinkSync(path.join(root, "node_modules"), path.join(clone, "node_modules"), "dir");

  // npm prints the lifecycle scripts it runs on standard output, before the tarball's name.
  packOutput = await run("npm", ["pack", "--pack-destination", base], { cwd: clone });
  const tarball = path.join(base, `${manifest.name}-${manifest.version}.tgz`);
  packed = (await run("tar", ["-tzf", tarball]))
    .split("\n")
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ""));

  project = path.join(base, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "packed-clone-user", private: true }));
  await run("npm", ["install", "--prefer-offline", "--legacy-peer-deps", "--no-audit", "--no-fund", "--loglevel=error", tarball], { cwd: project });
  fs.mkdirSync(path.join(project, "node_modules", "@pulumi"), { recursive: true });
  fs.symlinkSync(path.join(root, "node_modules", "@pulumi", "pulumi"), path.join(project, "node_modules", "@pulumi", "pulumi"), "dir");
}, 300_000);

afterAll(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  refuser?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** Starts a plugin as the engine does (its address as the argument) and connects to the port it prints first. */
async function startPlugin(command: string, cwd: string): Promise<{ client: any; child: ChildProcess }> {
  const child = spawn(command, [refuserAddress], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      stdout += d;
      const nl = stdout.indexOf("\n");
      if (nl >= 0) resolve(stdout.slice(0, nl).trim());
    });
    child.on("exit", (code) => reject(new Error(`the plugin exited (${code}) without printing its port:\n${stderr}`)));
  });
  expect(port).toMatch(/^\d+$/);
  return { client: new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()), child };
}

const ask = <T>(client: any, method: string, request: unknown, pick: (res: any) => T): Promise<T> =>
  new Promise((resolve, reject) => client[method](request, (err: Error | null, res: any) => (err ? reject(err) : resolve(pick(res)))));

describe("npm pack in a fresh clone", () => {
  it("builds the package first, and packs what the entry points and the plugin load", () => {
    expect(packOutput).toContain(`> ${manifest.name}@${manifest.version} prepack`);
    for (const file of ["dist/index.js", "dist/plugin/host.js", "dist/plugin/schema.json", "dist/sdk/index.js", "dist/sdk/index.d.ts", "bin/pulumi-resource-remote-browser"]) {
      expect(packed, file).toContain(file);
    }
    // The build's own bookkeeping stays out.
    expect(packed.filter((f) => f.includes(".build-stamp"))).toEqual([]);
  });

  it("gives a tarball whose installed plugin starts and answers GetPluginInfo and GetSchema", async () => {
    const bin = path.join(project, "node_modules", ".bin", "pulumi-resource-remote-browser");
    expect(fs.realpathSync(bin)).toBe(path.join(project, "node_modules", manifest.name, "bin", "pulumi-resource-remote-browser"));
    const { client, child } = await startPlugin(bin, project);
    try {
      const version = await ask(client, "getPluginInfo", new emptyproto.Empty(), (res) => res.getVersion());
      expect(version).toBe(manifest.version);
      const schema = JSON.parse(await ask(client, "getSchema", new provproto.GetSchemaRequest(), (res) => res.getSchema()));
      expect(schema).toEqual(JSON.parse(await new RemoteBrowserComponentProvider().getSchema()));
    } finally {
      client.close();
      child.kill("SIGKILL");
    }
  }, 60_000);
});

describe("npm publish in the same clone", () => {
  it("runs the same build before it packs (a dry run, against a registry that refuses every connection)", async () => {
    const { status, stdout, stderr } = await runStatus("npm", ["publish", "--dry-run", "--json", "--registry", `http://${refuserAddress}/`, "--fetch-retries=0"], { cwd: clone });
    expect(status, stderr).toBe(0);
    // With --json, npm announces the scripts it runs on standard error.
    expect(stderr).toContain(`> ${manifest.name}@${manifest.version} prepack`);
    const listed = JSON.parse(stdout)[manifest.name] as { files: Array<{ path: string }> };
    expect(listed.files.map((f) => f.path).sort()).toEqual([...packed].sort());
  }, 120_000);
});
