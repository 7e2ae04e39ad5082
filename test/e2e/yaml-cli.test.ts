import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { IMAGES } from "../../emulator/catalog";
import { USER_PAGES, codeBlocks, read } from "../docs/markdown";
import { type PulumiCli, accountBooks, filesText, newAccount, pulumiInstall, yamlLanguageHost, yamlProject } from "./plain-cli";
/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON of `pulumi stack export`, read field by field as the CLI writes it */

/**
 * YAML programs as a user runs them: a copy of the program folder with the packed package installed by
 * npm, the plain `pulumi` CLI with the real YAML language host (`pulumi-language-yaml`) beside it, as a
 * full Pulumi install ships it, and the plugin where the program's Pulumi.yaml declares it (the installed
 * package's `node_modules/.bin`, not on PATH; for ReviewSessions in a folder apart from the program's) —
 * no runner, no Automation API. The sequence is Pulumi's own
 * ProgramTest: up, preview and refresh without changes, destroy; the emulator's books say what really
 * ran. Two programs: examples/yaml-review (BrowserSession served natively, the data sources by
 * `fn::invoke`) and the ReviewSessions component (test/e2e/programs/yaml-review-sessions). They share one
 * emulator, each with an account of its own. The example gets the README's own `npm install` in its folder;
 * the ReviewSessions program links the e2e project's install of the same tarball (test/e2e/global-setup.ts).
 */
const root = path.resolve(__dirname, "..", "..");
const PREVIEW_URL = "https://pr-11.preview.example.com/";

let emulator: Emulator;
let base: string;
let pulumiBin: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-yaml-"));
  pulumiBin = pulumiInstall(path.join(base, "pulumi", "bin"), inject("e2e").pulumiBin, await yamlLanguageHost());
  emulator = await startEmulator({ prepMs: 300 });
});
afterAll(async () => {
  await emulator?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** A stack of the program in `source` for a new account of the emulator: stack init and config, key on stdin. */
/** No key, link id or share link in the exported state nor in any state file. */
function expectNowhere(secrets: string[], exported: string, stateDir: string): void {
  for (const secret of secrets) {
    expect(exported.includes(secret), "a key, link id or share link appears in stack export").toBe(false);
    expect(filesText(stateDir).includes(secret), "a key, link id or share link appears in the state files").toBe(false);
  }
}

/** The stack's `shareUrls` output: masked by default, each browser's link with --show-secrets. Returns the links. */
async function expectShareLinks(cli: PulumiCli, outputs: Record<string, unknown>, byBrowser: Record<string, { linkId: string } | undefined>) {
  expect(outputs.shareUrls).toBe("[secret]");
  const shown = JSON.parse((await cli.ok(["stack", "output", "--json", "--show-secrets"])).stdout) as Record<string, unknown>;
  const links = {
    chrome: `${emulator.shareBase}/de/s?${byBrowser.chrome!.linkId}`,
    firefox: `${emulator.shareBase}/de/s?${byBrowser.firefox!.linkId}`,
  };
  expect(shown.shareUrls).toEqual(links);
  return links;
}

/** ProgramTest's end of a two-session stack: preview and refresh without changes, then destroy ends both. */
async function noChangesThenDestroy(cli: PulumiCli, accountId: string): Promise<void> {
  await cli.clean(["preview", "--expect-no-changes"]);
  await cli.clean(["refresh", "--expect-no-changes", "--yes"]);
  expect(accountBooks(emulator, accountId)).toMatchObject({ started: 2, running: 2 });
  await cli.clean(["destroy", "--yes"]);
  expect(accountBooks(emulator, accountId)).toMatchObject({ started: 2, running: 0, neverEnded: 0 });
  expect(await cli.resources()).toEqual([]);
}

async function stackOf(name: string, source: string, account: { runningLimit?: number } = {}, pluginDir?: string) {
  const { apiKey, accountId } = newAccount(emulator, account);
  const cli = await yamlProject({ source, dir: path.join(base, name), stateDir: path.join(base, `${name}-state`), pulumiBin, tarball: inject("e2e").tarball, pluginDir });
  await cli.clean(["stack", "init", "dev"]);
  await cli.clean(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
  // The key goes in on standard input, never on a command line.
  await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], apiKey);
  await cli.clean(["config", "set", "previewUrl", PREVIEW_URL]);
  const stackConfig = fs.readFileSync(path.join(cli.dir, "Pulumi.dev.yaml"), "utf8");
  expect(stackConfig).toContain("secure:");
  expect(stackConfig.includes(apiKey), "the key is encrypted in the stack's config").toBe(false);
  return { cli, apiKey, accountId };
}

/** After destroy: a stack whose sessions were left running ends them, so the emulator closes on no session. */
async function tidy(cli: PulumiCli | undefined, accountId: string | undefined) {
  if (cli && accountId && accountBooks(emulator, accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
}

describe.concurrent("YAML programs with the plain pulumi CLI and pulumi-language-yaml", () => {
  it("examples/yaml-review: up starts a BrowserSession per browser and reads the data sources, preview and refresh find no change, destroy ends them, and nothing complains", async () => {
    let stack: Awaited<ReturnType<typeof stackOf>> | undefined;
    try {
      // A running limit of its own, so that the limit in the outputs is this account's meter and no default.
      stack = await stackOf("yaml-review", path.join(root, "examples", "yaml-review"), { runningLimit: 4 });
      const { cli, apiKey, accountId } = stack;

      // The engine runs the program with the pinned host, which reports its version.
      const about = JSON.parse((await cli.clean(["about", "--json"])).stdout) as { plugins: Array<{ name: string; kind: string; version: string | null }> };
      expect(about.plugins).toContainEqual({ name: "yaml", kind: "language", version: "1.32.0" });
      // The example names no version, and the CLI prints the versions the YAML host reports, which come from
      // the program alone (docs/installation-configuration.md, "The plugin"): unknown, whatever plugin runs.
      // A host or CLI that learns it from the plugin fails this, and the page's paragraph should go.
      expect(about.plugins.filter((p) => p.name === "remote-browser")).toEqual([{ name: "remote-browser", kind: "resource", version: null }]);

      const up = await cli.clean(["up", "--yes"]);
      expect(up.stdout).toMatch(/\+\s+3 created/); // the stack and two sessions

      const { sessions } = accountBooks(emulator, accountId);
      const outputs = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
      const byBrowser = Object.fromEntries(sessions.map((s) => [s.browser, s]));
      expect(sessions.length).toBe(2);
      expect(outputs.sessionIds).toEqual({ chrome: byBrowser.chrome!.vmId, firefox: byBrowser.firefox!.vmId });
      for (const s of sessions) {
        expect(s.status).toBe("running");
        expect(s.url).toBe(PREVIEW_URL); // the stack's config reached the program
        expect(s.shareLanguage).toBe("de");
      }
      expect(outputs.browserNames).toEqual({ chrome: "Google Chrome", firefox: "Mozilla Firefox" });
      // The data sources: the service's catalog, and this account's meter.
      expect(outputs.images).toEqual(IMAGES.map(({ id, name, enabled }) => ({ id, name, enabled })));
      expect(outputs.runningSessionLimit).toBe(4);
      const links = await expectShareLinks(cli, outputs, byBrowser);

      const exported = await cli.exportText();
      const resources = JSON.parse(exported).deployment.resources as Array<Record<string, any>>;
      const stackOutputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs;
      expect(stackOutputs.shareUrls.ciphertext, "shareUrls is a secret in the state").toEqual(expect.any(String));
      const native = resources.filter((r) => r.type === "remote-browser:index:BrowserSession");
      expect(native.map((r) => r.id).sort()).toEqual([byBrowser.chrome!.vmId, byBrowser.firefox!.vmId].sort());
      for (const r of native) {
        expect(r.outputs.shareUrl.ciphertext, "shareUrl is a secret in the state").toEqual(expect.any(String));
        expect(r.outputs.shareUrlPath.ciphertext, "shareUrlPath is a secret in the state").toEqual(expect.any(String));
      }
      expectNowhere([apiKey, ...sessions.map((s) => s.linkId), ...Object.values(links)], exported, cli.stateDir);

      await noChangesThenDestroy(cli, accountId);

      // The key as CI passes it, in the environment -- which the CLI does not know to mask -- and a service
      // whose refusal repeats the credentials presented: preview fails saying so, without printing them.
      await cli.clean(["config", "rm", "remote-browser:apiKey"]);
      cli.env.REMOTE_BROWSER_API_KEY = apiKey;
      emulator.control.fault({ operation: "*", kind: "denied_echo", count: 20, apiKey });
      const refused = await cli.fails(["preview"]);
      const printed = `${refused.stdout}\n${refused.stderr}`;
      expect(printed).toMatch(/invalid API key \(credentials presented: Bearer \[redacted\]; key=\[redacted\]/);
      expect(printed.includes(apiKey), "the key is printed").toBe(false);
    } finally {
      await tidy(stack?.cli, stack?.accountId);
    }
  });

  it("ReviewSessions: up starts one session per browser, preview and refresh find no change, destroy ends them, and nothing complains", async () => {
    let stack: Awaited<ReturnType<typeof stackOf>> | undefined;
    try {
      // The plugin from the e2e project's install, outside the program's folder: the program's folder has no
      // node_modules, no package.json, nothing above it either -- the sessions are the plugin's own resources.
      const pluginDir = path.join(inject("e2e").projectDir, "node_modules", ".bin");
      stack = await stackOf("yaml-review-sessions", path.join(__dirname, "programs", "yaml-review-sessions"), {}, pluginDir);
      expect(fs.readdirSync(stack.cli.dir).sort()).toEqual(["Pulumi.dev.yaml", "Pulumi.yaml"]);
      const { cli, apiKey, accountId } = stack;

      const up = await cli.clean(["up", "--yes"]);
      expect(up.stdout).toMatch(/\+\s+4 created/);

      const { sessions } = accountBooks(emulator, accountId);
      const outputs = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
      const ids = Object.values(outputs.sessionIds as Record<string, string>);
      expect(ids.length).toBe(2);
      expect(accountBooks(emulator, accountId)).toMatchObject({ started: ids.length, running: ids.length });
      expect(sessions.map((s) => s.vmId).sort()).toEqual([...ids].sort());
      const byBrowser = Object.fromEntries(sessions.map((s) => [s.browser, s]));
      expect(outputs.sessionIds).toEqual({ chrome: byBrowser.chrome!.vmId, firefox: byBrowser.firefox!.vmId });
      for (const s of sessions) {
        expect(s.status).toBe("running");
        expect(s.url).toBe(PREVIEW_URL); // the stack's config reached the program
        expect(s.shareLanguage).toBe("de");
      }
      const links = await expectShareLinks(cli, outputs, byBrowser);

      const exported = await cli.exportText();
      const component = (JSON.parse(exported).deployment.resources as Array<Record<string, any>>).find((r) => r.type === "remote-browser:index:ReviewSessions");
      expect(component, "the component in the state").toBeDefined();
      expect(component!.outputs.shareUrls.ciphertext, "shareUrls is a secret in the state").toEqual(expect.any(String));
      const children = (JSON.parse(exported).deployment.resources as Array<Record<string, any>>).filter((r) => r.parent === component!.urn);
      expect(children.map((r) => r.type)).toEqual(["remote-browser:index:BrowserSession", "remote-browser:index:BrowserSession"]);
      for (const child of children) expect(child.outputs.shareUrl.ciphertext, "each session's link is a secret in the state").toEqual(expect.any(String));
      expectNowhere([apiKey, ...sessions.map((s) => s.linkId), ...Object.values(links)], exported, cli.stateDir);

      await noChangesThenDestroy(cli, accountId);
    } finally {
      await tidy(stack?.cli, stack?.accountId);
    }
  });
});

/** The YAML programs of the README and the user's pages (docs/_index.md's among them), as their pages show them. */
const PAGE_PROGRAMS = USER_PAGES.flatMap((page) =>
  codeBlocks(read(page))
    .filter((b) => b.lang === "yaml" && /^runtime: yaml$/m.test(b.code))
    .map((b) => ({ where: `${page}:${b.line}`, code: b.code })),
);

describe.concurrent("the YAML programs of the README and the user's pages, with the plain pulumi CLI and pulumi-language-yaml", () => {
  it("there is one on the overview and one in the README", () => {
    expect(PAGE_PROGRAMS.map((p) => p.where.split(":")[0])).toEqual(expect.arrayContaining(["README.md", "docs/_index.md"]));
  });

  it.each(PAGE_PROGRAMS.map((p, i) => [p.where, p.code, i] as const))("%s: up starts its session with the link secret, preview finds no change, destroy ends it", async (_where, code, i) => {
    // The plugin from the e2e project's install; a program that declares where its plugin is gets that
    // declaration replaced by this folder's (its own `npm install` is the example's, run above).
    const pluginDir = path.join(inject("e2e").projectDir, "node_modules", ".bin");
    const source = path.join(base, `page-program-${i}-source`);
    fs.mkdirSync(source);
    fs.writeFileSync(path.join(source, "Pulumi.yaml"), code.replace(/^plugins:\n(?:[ -].*\n)*/m, ""));
    const { apiKey, accountId } = newAccount(emulator, {});
    let cli: PulumiCli | undefined;
    try {
      cli = await yamlProject({ source, dir: path.join(base, `page-program-${i}`), stateDir: path.join(base, `page-program-${i}-state`), pulumiBin, pluginDir });
      await cli.clean(["stack", "init", "dev"]);
      await cli.clean(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
      await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], apiKey);
      await cli.clean(["up", "--yes"]);
      const { sessions } = accountBooks(emulator, accountId);
      expect(sessions.map((s) => [s.browser, s.status])).toEqual([["chrome", "running"]]);
      const outputs = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
      expect(outputs.shareUrl).toBe("[secret]");
      expectNowhere([apiKey, sessions[0]!.linkId], await cli.exportText(), cli.stateDir);
      await cli.clean(["preview", "--expect-no-changes"]);
      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(emulator, accountId)).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
    } finally {
      await tidy(cli, accountId);
    }
  });
});
