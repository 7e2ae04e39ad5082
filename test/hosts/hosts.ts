import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import { pluginIdentity } from "../../plugin/identity";
import { fileType } from "../../release/fileType";
import { type PulumiCli, accountBooks, filesText, newAccount, pulumiCli, pulumiInstall } from "../e2e/plain-cli";
import { RELEASE_VERSION, releaseServer } from "../e2e/release-build";

/**
 * What the hosts cell's files share: a Pulumi install with the real language hosts beside `pulumi`, the
 * release's download address played on loopback, and a stack's whole life checked against the emulator.
 */
export const ARCHIVE = `pulumi-resource-remote-browser-v${RELEASE_VERSION}-linux-amd64.tar.gz`;
export type Language = "nodejs" | "python" | "go";

/** The host scripts/hosts.sh found (PATH first, then the cache of built hosts). */
export function languageHost(language: Language): string {
  const host = process.env[`PRB_LANGUAGE_HOST_${language.toUpperCase()}`];
  if (!host || !fs.existsSync(host)) throw new Error(`no pulumi-language-${language}: run this file through \`npm run test:hosts\` (scripts/hosts.sh finds the hosts)`);
  return host;
}

/** A Pulumi install in `dir`: `pulumi`, the hosts of `languages` (Python's with its -exec) and the dynamic provider plugin. */
export function hostsInstall(dir: string, languages: Language[]): string {
  const hosts = languages.map(languageHost);
  if (languages.includes("python")) hosts.push(path.join(path.dirname(languageHost("python")), "pulumi-language-python-exec"));
  return pulumiInstall(dir, inject("e2e").pulumiBin, ...hosts);
}

/** What each hosts test file runs on: its folder, a CLI with its hosts, an emulator and the release's server. */
export interface HostsBed {
  base: string;
  pulumiBin: string;
  emulator: Emulator;
  server: Awaited<ReturnType<typeof releaseServer>>;
}

/** The file's bed, set up before its tests and taken down after them. */
export function hostsBed(name: string, languages: Language[]): HostsBed {
  const bed = {} as HostsBed;
  beforeAll(async () => {
    bed.base = fs.mkdtempSync(path.join(os.tmpdir(), `prb-hosts-${name}-`));
    bed.pulumiBin = hostsInstall(path.join(bed.base, "pulumi", "bin"), languages);
    bed.emulator = await startEmulator({ prepMs: 300 });
    bed.server = await releaseServer(inject("hosts").release);
  });
  afterAll(async () => {
    await bed.server?.close();
    await bed.emulator?.close();
    // Not rmSync: the folder holds virtualenvs and node_modules, and the worker hosts the emulator.
    if (bed.base) await fs.promises.rm(bed.base, { recursive: true, force: true });
  });
  return bed;
}

/**
 * Lets the engine acquire plugins, and sends the download of the release's address (the pluginDownloadURL
 * the release's SDKs carry, github://api.github.com/<owner>/<repo>) to `url`, through the setting Pulumi
 * reads for mirrors of plugin downloads. Only that address: any other download would go to the network.
 */
export function acquireFrom(cli: PulumiCli, url: string): void {
  delete cli.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
  const address = pluginIdentity().pluginDownloadURL;
  cli.env.PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES = `^${address.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$=${url}`;
}

/** The CLI in `dir` with a stack `dev` of its own whose key (a new account's) went in on standard input. */
export async function stack(pulumiBin: string, dir: string, stateDir: string, emulator: Emulator, config: Record<string, string> = {}) {
  const account = newAccount(emulator);
  const cli = pulumiCli(pulumiBin, dir, stateDir);
  await cli.clean(["stack", "init", "dev"]);
  await cli.clean(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
  await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], account.apiKey);
  for (const [key, value] of Object.entries(config)) await cli.clean(["config", "set", key, value]);
  return { cli, account };
}

/**
 * A whole life of the stack, as a user runs it: `up`, `preview` and `refresh` without changes, `destroy`.
 * After `up` the account runs exactly `sessions` sessions, `outputs` checks the outputs, and neither the
 * exported state nor any file of the backend or PULUMI_HOME holds the key or a share link; after
 * `destroy` nothing runs.
 */
export async function lifecycle(
  cli: PulumiCli,
  emulator: Emulator,
  account: { apiKey: string; accountId: string },
  sessions: number,
  outputs: (outputs: Record<string, any>) => void, // eslint-disable-line @typescript-eslint/no-explicit-any -- the JSON of `pulumi stack output`, read field by field
): Promise<void> {
  const books = () => accountBooks(emulator, account.accountId);
  await cli.clean(["up", "--yes"]);
  expect(books()).toMatchObject({ started: sessions, running: sessions });
  outputs(JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout));
  const links = books().sessions.map((s) => s.linkId);
  const exported = await cli.exportText();
  expect(exported.includes(account.apiKey), "no API key in the exported state").toBe(false);
  for (const link of links) expect(exported.includes(link), "no plaintext share link in the exported state").toBe(false);
  await cli.clean(["preview", "--expect-no-changes"]);
  await cli.clean(["refresh", "--expect-no-changes", "--yes"]);
  expect(books()).toMatchObject({ started: sessions, running: sessions });
  await cli.clean(["destroy", "--yes"]);
  expect(books()).toMatchObject({ started: sessions, running: 0, neverEnded: 0 });
  const files = filesText(cli.stateDir);
  expect(files.includes(account.apiKey), "no API key in the state, its history or the logs").toBe(false);
  for (const link of links) expect(files.includes(link), "no plaintext share link in the state, its history or the logs").toBe(false);
}

/**
 * The release programs' lifecycle (`programs/<language>`: a BrowserSession of chrome, a ReviewSessions of
 * firefox, getImages), their outputs checked, then proof that the engine downloaded the release's own
 * binary from `folder` of the release's address.
 */
export async function releaseProgramLifecycle(cli: PulumiCli, bed: HostsBed, account: { apiKey: string; accountId: string }, folder: string): Promise<void> {
  const sessions = () => bed.emulator.control.sessions().filter((s) => s.accountId === account.accountId);
  await lifecycle(cli, bed.emulator, account, 2, (outputs) => {
    expect(outputs.sessionId).toBe(sessions().find((s) => s.browser === "chrome")!.vmId);
    expect(outputs.reviewSessionIds).toEqual({ firefox: sessions().find((s) => s.browser === "firefox")!.vmId });
    expect(outputs.shareUrl).toBe("[secret]");
    expect(outputs.reviewShareUrls).toBe("[secret]");
    expect(outputs.images).toEqual(expect.arrayContaining(["chrome", "firefox"]));
  });
  expect(fileType(downloadedPlugin(cli)), "the release's binary, downloaded by the engine").toBe("ELF 64-bit x86-64");
  expect(bed.server.served, "from the loopback release address").toContain(`/${folder}/${ARCHIVE}`);
}

/** Where the engine keeps the plugin of the release's version that it downloaded. */
export function downloadedPlugin(cli: PulumiCli): string {
  return path.join(cli.env.PULUMI_HOME!, "plugins", `resource-remote-browser-v${RELEASE_VERSION}`, "pulumi-resource-remote-browser");
}
