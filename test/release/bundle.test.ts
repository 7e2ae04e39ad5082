import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReleaseFacts } from "../../release/bundle";
import { servedSchemaOf } from "../../plugin/packageSchema";
import { run } from "../../release/run";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC client, required without types */

/**
 * The release binary's bundle (release/bundle.ts): each start of the binary holds its whole text, so it
 * carries what the plugin uses and no more, and it serves the schema it was built with. The build runs from
 * dist/, as `npm run release` does (it finds the sources from there).
 */
const root = path.resolve(__dirname, "..", "..");
/* eslint-disable @typescript-eslint/no-require-imports -- @pulumi/pulumi's generated gRPC modules have no types and no ES exports */
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
/* eslint-enable @typescript-eslint/no-require-imports */

const facts: ReleaseFacts = {
  version: "7.8.9-bundle.1",
  pluginDownloadURL: "github://api.github.com/example-owner/pulumi-remote-browser",
  repository: "https://github.com/example-owner/pulumi-remote-browser",
};

let bundle: { code: string; inputs: string[] };
const work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-bundle-"));
let child: ChildProcess | undefined;
let engine: net.Server;

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, "dist", "release", "bundle.js"))) await run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: root });
  const { bundlePlugin } = require(path.join(root, "dist", "release", "bundle.js")) as typeof import("../../release/bundle"); // eslint-disable-line @typescript-eslint/no-require-imports -- the built dist/, a path known only at run time
  bundle = await bundlePlugin(facts);
  engine = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
}, 120_000);

afterAll(() => {
  child?.kill("SIGKILL");
  engine?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the release bundle", () => {
  it("carries gRPC, the SDK's provider server and the plugin, and none of the SDK's entry point, Automation API, schema analyzer or TypeScript", () => {
    const holds = (part: string) => bundle.inputs.some((file) => file.includes(part));
    for (const part of ["node_modules/@grpc/grpc-js/", "@pulumi/pulumi/proto/provider_pb.js", "@pulumi/pulumi/provider/server.js", "plugin/server.ts", "plugin/handlers.ts"]) {
      expect(holds(part), part).toBe(true);
    }
    for (const part of ["node_modules/typescript/", "@pulumi/pulumi/index.js", "@pulumi/pulumi/automation/", "@pulumi/pulumi/provider/experimental/", "node_modules/@npmcli/"]) {
      expect(holds(part), part).toBe(false);
    }
    // A tenth of what the whole SDK made it (18 MB).
    expect(bundle.code.length).toBeLessThan(4_000_000);
  });

  it("runs as the plugin, at the release's version, and serves the schema a plugin of the release's facts builds", async () => {
    const file = path.join(work, "plugin.js");
    fs.writeFileSync(file, bundle.code);
    child = spawn(process.execPath, [file, `127.0.0.1:${(engine.address() as net.AddressInfo).port}`], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      child!.stdout!.on("data", (d) => {
        out += d;
        const line = /^(\d+)\n/.exec(out);
        if (line) resolve(line[1]!);
      });
      child!.on("exit", (code) => reject(new Error(`the bundle exited (${code}) before printing its port:\n${stderr}`)));
    });
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = <T = any>(method: string, req: unknown) => new Promise<T>((resolve, reject) => client[method](req, (err: Error | null, res: T) => (err ? reject(err) : resolve(res))));
    try {
      expect((await call("getPluginInfo", new Empty())).getVersion()).toBe(facts.version);
      const served = JSON.parse((await call("getSchema", new provproto.GetSchemaRequest())).getSchema());
      expect(served).toEqual(servedSchemaOf({ name: "remote-browser", ...facts }));
      // Built with the bundle, not at the call: its text is in the bundle, the release's version in it.
      expect(bundle.code).toContain(`{"name":"remote-browser","version":"${facts.version}"`);
      expect(served.pluginDownloadURL).toBe(facts.pluginDownloadURL);
    } finally {
      client.close();
    }
  }, 60_000);
});
