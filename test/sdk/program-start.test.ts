import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run, runStatus } from "../../release/run";

/**
 * What a program that declares sessions loads with the SDK, and what the runner loads with its own code:
 * the service's client (zod and every schema) comes only with the first call to the service, from a data
 * source or the provider, and undici with its first request. A program's start is part of every `pulumi up`, `preview` and `refresh`
 * (the runner runs the program in its own process); the client was about a third of the SDK's load.
 * Read from a fresh Node.js process's module cache, on the built package, as a program loads it.
 */
const root = path.resolve(__dirname, "..", "..");
const CLIENT_PARTS = ["node_modules/undici/", "node_modules/zod/", "dist/client/client.js", "dist/client/schemas.js", "dist/core/dataSources.js"];

/** The modules `script` loaded, read at the process's exit (a script may end it itself). */
async function loadedBy(script: string, args: string[] = []): Promise<string[]> {
  const record = `process.on("exit", () => require("node:fs").writeSync(2, "\\nloaded: " + JSON.stringify(Object.keys(require.cache)) + "\\n"));`;
  const child = await runStatus(process.execPath, ["-e", `${record} ${script}`, "--", ...args], { cwd: root });
  const line = child.stderr.split("\n").find((l) => l.startsWith("loaded: "));
  if (child.status !== 0 || !line) throw new Error(`the script failed (exit ${child.status}): ${child.stderr}`);
  return (JSON.parse(line.slice("loaded: ".length)) as string[]).map((m) => m.split(path.sep).join("/"));
}

const clientParts = (modules: string[]) => CLIENT_PARTS.filter((part) => modules.some((m) => m.includes(part)));

beforeAll(async () => {
  await run("bash", [path.join(root, "scripts", "build.sh")], { cwd: root });
}, 120_000);

describe("a program's start", () => {
  it("loads the SDK (BrowserSession and the data sources) without the service's client", async () => {
    const modules = await loadedBy(`const sdk = require("./dist/sdk"); if (!sdk.BrowserSession || !sdk.getImages) throw new Error("no SDK")`);
    expect(modules.some((m) => m.endsWith("dist/sdk/browserSession.js"))).toBe(true);
    expect(clientParts(modules)).toEqual([]);
  });

  it("loads the runner, and its command line, without the service's client", async () => {
    // The command line, asked for its help (its arguments start at argv[2], as a script's do): it loads what
    // every action loads.
    const modules = await loadedBy(`require("./dist/runner/cli.js"); require("./dist/runner")`, ["cli.js", "--help"]);
    expect(modules.some((m) => m.endsWith("dist/runner/index.js"))).toBe(true);
    expect(modules.some((m) => m.endsWith("dist/runner/cli.js"))).toBe(true);
    expect(clientParts(modules)).toEqual([]);
    // The SDK's runtime is loaded, without what only computeCodePaths and the closure serialiser use
    // (engine-conventions/pulumiSdk.ts).
    expect(modules.some((m) => m.includes("@pulumi/pulumi/runtime/index.js"))).toBe(true);
    expect(modules.filter((m) => m.includes("node_modules/@npmcli/arborist/") || m.includes("typescript"))).toEqual([]);
  });

  it("loads the client with the first client made for the settings, and undici with its first request", async () => {
    const made = `const c = require("./dist/core/context").clientForConfig({ baseUrl: "http://127.0.0.1:9/v8", requestTimeoutSeconds: 1 }); if (typeof c.images !== "function") throw new Error("no client");`;
    const modules = await loadedBy(made);
    expect(clientParts(modules)).toEqual(CLIENT_PARTS.filter((p) => p !== "dist/core/dataSources.js" && p !== "node_modules/undici/"));
    // A request to a server that answers with no envelope: undici sent it, the answer is refused.
    const server = `const s = require("node:http").createServer((q, r) => r.end("{}")).listen(0, "127.0.0.1", () => { ${made.replace("127.0.0.1:9", '" + "127.0.0.1:" + s.address().port + "')} c.images().catch(() => undefined).finally(() => s.close()); });`;
    const requested = await loadedBy(server);
    expect(clientParts(requested)).toEqual(CLIENT_PARTS.filter((p) => p !== "dist/core/dataSources.js"));
  });
});
