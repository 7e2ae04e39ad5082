import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { fileType } from "../../release/fileType";
import { run } from "../../release/run";
import { type PulumiCli, accountBooks, filesText, newAccount, onPath, pulumiCli, pulumiInstall, yamlLanguageHost } from "./plain-cli";
import { RELEASE_VERSION, linuxRelease, releaseServer } from "./release-build";

/**
 * The plugin as a user of any language gets it, from the release's linux-amd64 archive alone: installed
 * with `pulumi plugin install ... --server`, or acquired by the engine from the program's
 * `pluginDownloadURL`, then run by a YAML program with no Node.js on PATH and no node_modules anywhere
 * (programs/release-yaml). A local HTTP server plays the release's download address (any folder of it
 * serves the release, so each test's downloads are told apart by theirs).
 */
const ARCHIVE = `pulumi-resource-remote-browser-v${RELEASE_VERSION}-linux-amd64.tar.gz`;

let release: string;
let emulator: Emulator;
let base: string;
let pulumiBin: string;
let server: Awaited<ReturnType<typeof releaseServer>>;
let downloadUrl: string;

beforeAll(async () => {
  release = await linuxRelease(inject("e2e").pulumiBin);
  base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-release-"));
  pulumiBin = pulumiInstall(path.join(base, "pulumi", "bin"), inject("e2e").pulumiBin, await yamlLanguageHost());
  emulator = await startEmulator({ prepMs: 300 });
  // Serves the release's files by name, as a release page would; nothing else.
  server = await releaseServer(release);
  downloadUrl = server.url;
});
afterAll(async () => {
  await server?.close();
  await emulator?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/**
 * The program in a folder of its own with a fresh PULUMI_HOME, the pulumi install's folder as the whole
 * PATH (no `node`), and a stack whose key went in on standard input.
 */
async function project(name: string, apiKey: string): Promise<PulumiCli> {
  const dir = path.join(base, name);
  fs.mkdirSync(dir);
  const program = fs.readFileSync(path.join(__dirname, "programs", "release-yaml", "Pulumi.yaml"), "utf8");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program.replaceAll("__VERSION__", RELEASE_VERSION).replaceAll("__DOWNLOAD_URL__", `${downloadUrl}${name}/`));
  const cli = pulumiCli(pulumiBin, dir, path.join(base, `${name}-state`));
  cli.env.PATH = path.dirname(pulumiBin);
  expect(onPath("node", cli.env.PATH), "no Node.js on the program's PATH").toBeUndefined();
  await cli.clean(["stack", "init", "dev"]);
  await cli.clean(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
  await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], apiKey);
  return cli;
}

/**
 * A whole life of the stack: up, no change on preview and refresh, destroy; nothing left running. With
 * `noChangeChecks` false, the preview and refresh are left out: the same program and plugin in another
 * test of this file run them already (the engine's way to the plugin is what differs).
 */
async function lifecycle(cli: PulumiCli, account: { apiKey: string; accountId: string }, noChangeChecks = true) {
  const up = await cli.clean(["up", "--yes"]);
  expect(up.stdout).toMatch(/\+\s+4 created/); // the stack, the session, the component and its session (providers are not counted)
  const books = () => accountBooks(emulator, account.accountId);
  const session = books().sessions.find((s) => s.browser === "chrome");
  const reviewed = books().sessions.find((s) => s.browser === "firefox");
  expect(books()).toMatchObject({ started: 2, running: 2 });
  const outputs = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
  expect(outputs.sessionId).toBe(session!.vmId);
  expect(outputs.reviewSessionIds).toEqual({ firefox: reviewed!.vmId });
  expect(outputs.shareUrl).toBe("[secret]");
  expect((outputs.images as unknown[]).length).toBeGreaterThan(0);
  const resources = await cli.resources();
  // The component's session is the plugin's own native resource.
  expect(resources.filter((r) => r.type === "remote-browser:index:BrowserSession")).toHaveLength(2);

  // The default provider carries the release's version, as the engine recorded it.
  const provider = resources.find((r) => r.type === "pulumi:providers:remote-browser");
  expect(provider?.inputs?.version).toBe(RELEASE_VERSION);

  if (noChangeChecks) {
    await cli.clean(["preview", "--expect-no-changes"]);
    await cli.clean(["refresh", "--expect-no-changes", "--yes"]);
  }
  await cli.clean(["destroy", "--yes"]);
  expect(books()).toMatchObject({ started: 2, running: 0, neverEnded: 0 });

  const state = filesText(cli.stateDir);
  expect(state.includes(account.apiKey), "no API key in the state, its history or the logs").toBe(false);
  for (const s of [session!, reviewed!]) expect(state.includes(s.linkId), "no plaintext share link").toBe(false);
  expect(fs.readdirSync(cli.dir).sort(), "nothing but the program in its folder (no node_modules)").toEqual(["Pulumi.dev.yaml", "Pulumi.yaml"]);
}

const pluginDir = (cli: PulumiCli) => path.join(cli.env.PULUMI_HOME!, "plugins", `resource-remote-browser-v${RELEASE_VERSION}`);

describe("the release archive", () => {
  it("lists the linux-amd64 archive with the executable at its root, typed ELF x86-64, and checksums.txt verifies it", async () => {
    expect(
      fs
        .readdirSync(release)
        .filter((f) => !f.startsWith("."))
        .sort(),
    ).toEqual([ARCHIVE, "checksums.txt", `pulumi-remote-browser-${RELEASE_VERSION}.tgz`, "schema.json"].sort());
    expect((await run("tar", ["-tzf", path.join(release, ARCHIVE)])).split("\n").filter(Boolean).sort()).toEqual(["LICENSE", "README.md", "pulumi-resource-remote-browser"]);
    expect(await run("sha256sum", ["--check", "--strict", "checksums.txt"], { cwd: release })).toBe(`${ARCHIVE}: OK\n`);
    const schema = JSON.parse(fs.readFileSync(path.join(release, "schema.json"), "utf8"));
    expect(schema).toMatchObject({ name: "remote-browser", version: RELEASE_VERSION });
    expect(Object.keys(schema.resources)).toContain("remote-browser:index:BrowserSession");
  });
});

describe.concurrent("a YAML program on the release binary alone: no Node.js, no node_modules", () => {
  it("installed by `pulumi plugin install --server`: `pulumi plugin ls` and `pulumi about` name its version; BrowserSession, fn::invoke and ReviewSessions: up, preview and refresh without changes, destroy", async () => {
    const account = newAccount(emulator);
    const cli = await project("installed", account.apiKey);
    await cli.clean(["plugin", "install", "resource", "remote-browser", RELEASE_VERSION, "--server", `${downloadUrl}installed/`]);
    const installed = path.join(pluginDir(cli), "pulumi-resource-remote-browser");
    expect(fileType(installed)).toBe("ELF 64-bit x86-64");
    expect((await cli.ok(["plugin", "ls"])).stdout).toMatch(new RegExp(`remote-browser\\s+resource\\s+${RELEASE_VERSION.replaceAll(".", "\\.")}`));
    expect((await cli.ok(["about"])).stdout).toMatch(new RegExp(`resource\\s+remote-browser\\s+${RELEASE_VERSION.replaceAll(".", "\\.")}`));
    // Acquisition is off (the engine's environment of the suite): the plugin can only be the installed one.
    expect(cli.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION).toBe("true");
    await lifecycle(cli, account);
  });

  it("acquired by the engine itself from the program's pluginDownloadURL into a fresh PULUMI_HOME: up and destroy", async () => {
    const account = newAccount(emulator);
    const cli = await project("acquired", account.apiKey);
    delete cli.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
    expect(fs.existsSync(pluginDir(cli))).toBe(false);
    // The preview and refresh without changes: the installed test's (the same program and binary).
    await lifecycle(cli, account, false);
    expect(fileType(path.join(pluginDir(cli), "pulumi-resource-remote-browser"))).toBe("ELF 64-bit x86-64");
    expect(
      server.served.filter((url) => url.startsWith("/acquired/")),
      "the engine downloaded the archive from the program's address",
    ).toContain(`/acquired/${ARCHIVE}`);
  });
});
