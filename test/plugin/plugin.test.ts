import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RemoteBrowserComponentProvider } from "../../plugin/provider";
import { run } from "../../release/run";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC client and the schema's JSON, which have no types */

/**
 * The plugin's ways in, without the engine: the executable the engine runs from PATH, the Node.js
 * language host's run-plugin (what `pulumi package add <path or git URL>` runs where there is a language
 * host), and what the provider refuses before it constructs anything.
 */
const root = path.resolve(__dirname, "..", "..");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- @pulumi/pulumi's generated gRPC modules have no types and no ES exports
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- @pulumi/pulumi's generated gRPC modules have no types and no ES exports
const provproto = require("@pulumi/pulumi/proto/provider_pb");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

/** Starts a plugin command the way the engine does (its address as the argument), and asks it for its schema. */
async function schemaFrom(command: string, args: string[], cwd: string, env = process.env): Promise<{ schema: any; firstLine: string }> {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const firstLine = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      stdout += d;
      const nl = stdout.indexOf("\n");
      if (nl >= 0) resolve(stdout.slice(0, nl));
    });
    child.on("exit", (code) => reject(new Error(`the plugin exited (${code}) without a port:\n${stderr}`)));
  });
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${firstLine.trim()}`, grpc.credentials.createInsecure());
  try {
    const text = await new Promise<string>((resolve, reject) => client.getSchema(new provproto.GetSchemaRequest(), (err: Error | null, res: any) => (err ? reject(err) : resolve(res.getSchema()))));
    return { schema: JSON.parse(text), firstLine };
  } finally {
    client.close();
  }
}

let served: any;
/** Stands in for the engine's address, which the plugin watches: it exits once the address refuses connections. */
let engine: net.Server;
let engineAddress: string;
beforeAll(async () => {
  engine = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  engineAddress = `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
  if (!fs.existsSync(path.join(root, "dist", "plugin", "host.js"))) {
    await run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: root });
  }
  served = JSON.parse(await new RemoteBrowserComponentProvider().getSchema());
}, 180_000);

describe("the plugin executable", () => {
  it("bin/pulumi-resource-remote-browser serves the schema, and prints only its port first", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "prb-plugin-"));
    try {
      const { schema, firstLine } = await schemaFrom(path.join(root, "bin", "pulumi-resource-remote-browser"), [engineAddress], cwd);
      expect(firstLine).toMatch(/^\d+$/);
      expect(schema).toEqual(served);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("the Node.js language host's way in", () => {
  // The language host runs `node @pulumi/pulumi/cmd/run-plugin <plugin folder> <engine address>` in the
  // program's folder. run-plugin registers ts-node with its own settings (target ES2020) merged with the
  // tsconfig.json of that folder, and TypeScript takes the folder's node_modules/@types: a source checkout's
  // plugin must start whatever the program's folder holds. ts-node's cache is off: a compilation cached by an
  // earlier start would skip the type check that fails.
  const programs: Record<string, (dir: string) => void> = {
    "an empty folder": () => undefined,
    // As `npm install` in examples/python-review leaves it: a newer @types/node (26), without the
    // declarations that give ES2020's lib `Array.prototype.at`; here the installed one without them.
    "a folder whose node_modules has a newer @types/node": (dir) => {
      const types = path.join(dir, "node_modules", "@types", "node");
      fs.cpSync(path.join(root, "node_modules", "@types", "node"), types, { recursive: true });
      fs.writeFileSync(path.join(types, "compatibility", "indexable.d.ts"), "export {};\n");
    },
    // A TypeScript program's own settings, here the strictest checks (as @tsconfig/strictest sets them).
    "a folder with a tsconfig.json of its own": (dir) => {
      const compilerOptions = {
        strict: true,
        module: "commonjs",
        moduleResolution: "node10",
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noPropertyAccessFromIndexSignature: true,
        noImplicitReturns: true,
        noUnusedParameters: true,
      };
      fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions }));
    },
  };
  it.each(Object.keys(programs))(
    "run-plugin serves remote-browser from a source checkout that was not built (as a git URL installs it), run in %s",
    async (kind) => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-run-plugin-"));
      try {
        const checkout = path.join(base, "checkout");
        fs.mkdirSync(checkout);
        for (const entry of ["main.js", "source-checkout.js", "index.ts", "plugin", "core", "engine-conventions", "dynamic", "sdk", "client", "package.json", "tsconfig.json", "PulumiPlugin.yaml"]) {
          fs.cpSync(path.join(root, entry), path.join(checkout, entry), { recursive: true });
        }
        fs.symlinkSync(path.join(root, "node_modules"), path.join(checkout, "node_modules"), "dir");
        const program = path.join(base, "program");
        fs.mkdirSync(program);
        programs[kind]!(program);
        const runPlugin = require.resolve("@pulumi/pulumi/cmd/run-plugin");
        const { schema, firstLine } = await schemaFrom(process.execPath, [runPlugin, checkout, engineAddress], program, { ...process.env, TS_NODE_CACHE: "false" });
        expect(firstLine).toMatch(/^\d+$/);
        expect(schema).toEqual(served);
      } finally {
        fs.rmSync(base, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe("the provider's construct", () => {
  const provider = new RemoteBrowserComponentProvider();

  it("refuses a type of another package or module, and an unknown component", async () => {
    await expect(provider.construct("x", "other:index:ReviewSessions", {}, {})).rejects.toThrow(/Invalid package name other/);
    await expect(provider.construct("x", "remote-browser:sub:ReviewSessions", {}, {})).rejects.toThrow(/Invalid module 'sub'/);
    await expect(provider.construct("x", "remote-browser:index:Nope", {}, {})).rejects.toThrow(/Component class not found for 'Nope'/);
  });
});

afterAll(() => engine?.close());
