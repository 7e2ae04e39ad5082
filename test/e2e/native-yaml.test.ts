import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { type Emulator, startEmulator } from "../../emulator";
import { IMAGES } from "../../emulator/catalog";
import { spawn } from "node:child_process";
import { isRunning } from "../helpers/processes";
import { childPids, commandOf, until } from "./harness";
import { type PulumiCli, accountBooks, complaints, filesText, newAccount, pulumiInstall, yamlLanguageHost, yamlProject } from "./plain-cli";
/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON of `pulumi stack export` and `stack output`, read field by field as the CLI writes it */

/**
 * BrowserSession, the data sources and the provider's settings served natively by the plugin, from Pulumi
 * YAML with the plain CLI and the real YAML language host (issue 22): two accounts in one stack through an
 * explicit provider, `pulumi import` of a session started elsewhere, `customTimeouts.create`, and a wrong
 * key or setting refused at preview; every kind of replacement on a running limit of 1, the viewer language
 * changed in place and a destroy bounded by customTimeouts.delete (issue 43). The programs are in
 * test/e2e/programs/native-yaml; each test has a stack of its own and, on the shared emulator, accounts of
 * its own, so the tests run at once and each reads its own accounts' share of the books. The plugin comes from the packed package as npm installed it
 * into the e2e project (test/e2e/global-setup.ts), linked into each program's copy, where the program's
 * Pulumi.yaml declares it; yaml-cli.test.ts runs the README's own `npm install` in a program folder.
 */
const programs = path.join(__dirname, "programs", "native-yaml");
const BROWSER_SESSION = "remote-browser:index:BrowserSession";

let emulator: Emulator;
let base: string;
let pulumiBin: string;
let modules: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-native-yaml-"));
  pulumiBin = pulumiInstall(path.join(base, "pulumi", "bin"), inject("e2e").pulumiBin, await yamlLanguageHost());
  modules = path.join(inject("e2e").projectDir, "node_modules");
  emulator = await startEmulator({ prepMs: 300 });
});
afterAll(async () => {
  await emulator?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** A stack of the program `name` (a folder of programs/native-yaml) in a copy of its own, with `--stack` `dev`. */
async function stackOf(name: string, copy: string, on: Emulator = emulator): Promise<PulumiCli> {
  const cli = await yamlProject({ source: path.join(programs, name), dir: path.join(base, copy), stateDir: path.join(base, `${copy}-state`), pulumiBin, sharedModules: modules });
  await cli.clean(["stack", "init", "dev"]);
  await cli.clean(["config", "set", "remote-browser:baseUrl", on.apiBaseUrl]);
  return cli;
}

/** The key goes in on standard input, never on a command line, and is encrypted in the stack's config. */
async function setSecret(cli: PulumiCli, key: string, value: string) {
  await cli.clean(["config", "set", "--secret", key], value);
  expect(fs.readFileSync(path.join(cli.dir, "Pulumi.dev.yaml"), "utf8").includes(value), `${key} is encrypted in the stack's config`).toBe(false);
}

const text = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

/** The stack's BrowserSession resources, in the order the state lists them. */
async function sessionsOf(cli: PulumiCli) {
  return (await cli.resources()).filter((r) => r.type === BROWSER_SESSION);
}

/**
 * After an up that replaced the stack's one session `firstId` on `account`'s running limit of 1: the stack's
 * session is another one, running, the only one started beside the first; destroy then ends it.
 */
async function expectReplacedThenDestroyed(cli: PulumiCli, account: { accountId: string }, firstId: string) {
  const [second] = await sessionsOf(cli);
  expect(second!.id).not.toBe(firstId);
  expect(emulator.control.sessions().find((s) => s.vmId === second!.id)!.status).toBe("running");
  expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 2, running: 1 });
  await cli.clean(["destroy", "--yes"]);
  expect(accountBooks(emulator, account.accountId)).toMatchObject({ running: 0, neverEnded: 0 });
}

/**
 * The program full-limit in a copy of its own, on an account whose running limit is 1, brought up with a
 * first url; `body` goes on from its one session, and whatever it leaves running is destroyed after.
 */
async function onFullLimit(copy: string, body: (s: { cli: PulumiCli; account: { apiKey: string; accountId: string }; first: { id: string } }) => Promise<void>) {
  const account = newAccount(emulator, { runningLimit: 1 });
  const cli = await stackOf("full-limit", copy);
  try {
    await setSecret(cli, "remote-browser:apiKey", account.apiKey);
    await cli.clean(["config", "set", "url", "https://example.com/first"]);
    await cli.clean(["up", "--yes"]);
    const [first] = await sessionsOf(cli);
    expect(first, "the first up recorded the session").toBeDefined();
    await body({ cli, account, first: first as { id: string } });
  } finally {
    if (accountBooks(emulator, account.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
  }
}

/** The command warned, and of nothing but what an import of `vmId` cannot confirm. */
function expectOnlyImportWarning(r: { stdout: string; stderr: string; code: number }, vmId: string) {
  const lines = complaints(r);
  expect(lines.length).toBeGreaterThan(0);
  const warning = `warning: BrowserSession ${vmId}, taken in by its id: the service reports its browser and state, not the other inputs it was started with (url, language,`;
  for (const line of lines) expect(line).toContain(warning);
}

/** The usage meter the service reports for `apiKey`, in getUsage's shape (camelCase, absent where null). */
async function meterOf(apiKey: string): Promise<unknown> {
  const res = await fetch(`${emulator.apiBaseUrl}/user/quota`, { headers: { authorization: `Bearer ${apiKey}` } });
  const { status, has_plan, ...raw } = (await res.json()) as Record<string, unknown>;
  expect(status).toBe("ok");
  const camel = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(camel)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== null)
              .map(([k, x]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(x)]),
          )
        : v;
  return { ...(camel(raw) as object), hasPlan: has_plan, meter: "sessions" };
}

/** The first page of the sessions started outside Pulumi. */
const STARTED_URL = "https://started-elsewhere.example.com/";

/** Starts a session with a raw request to the service, as something outside Pulumi would. */
async function startOutside(apiKey: string, browser: string): Promise<string> {
  const res = await fetch(`${emulator.apiBaseUrl}/vm/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ browser, url: STARTED_URL }),
  });
  const answer = (await res.json()) as { status: string; vmId: string };
  expect(answer.status).toBe("ok");
  return answer.vmId;
}

describe.concurrent("BrowserSession served natively, from YAML with the plain CLI", () => {
  it("two accounts in one stack: each account's session on its own books, the data sources' answers, no change on preview, refresh and a second up, secrets kept, destroy ends both", async () => {
    const first = newAccount(emulator);
    const second = newAccount(emulator, { runningLimit: 3 });
    const cli = await stackOf("accounts", "accounts");
    try {
      await setSecret(cli, "remote-browser:apiKey", first.apiKey);
      await setSecret(cli, "secondKey", second.apiKey);
      await cli.clean(["config", "set", "secondBaseUrl", emulator.apiBaseUrl]);

      const up = await cli.clean(["up", "--yes"]);
      expect(up.stdout).toMatch(/\+\s+4 created/); // the stack, the explicit provider, two sessions

      // Each account has its own session, running: the explicit provider's key started firefox.
      const [chrome] = accountBooks(emulator, first.accountId).sessions;
      const [firefox] = accountBooks(emulator, second.accountId).sessions;
      expect(accountBooks(emulator, first.accountId)).toMatchObject({ started: 1, running: 1 });
      expect(accountBooks(emulator, second.accountId)).toMatchObject({ started: 1, running: 1 });
      expect([chrome!.browser, firefox!.browser]).toEqual(["chrome", "firefox"]);

      const outputs = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as Record<string, any>;
      expect(outputs.sessionIds).toEqual({ chrome: chrome!.vmId, firefox: firefox!.vmId });
      expect(outputs.shareUrls).toBe("[secret]");
      const links = { chrome: `${emulator.shareBase}/de/s?${chrome!.linkId}`, firefox: `${emulator.shareBase}/fr/s?${firefox!.linkId}` };
      expect(JSON.parse((await cli.ok(["stack", "output", "--json", "--show-secrets"])).stdout).shareUrls).toEqual(links);
      expect(outputs.images).toEqual(IMAGES.map(({ id, name, enabled }) => ({ id, name, enabled })));

      await cli.clean(["preview", "--expect-no-changes"]);
      await cli.clean(["refresh", "--expect-no-changes", "--yes"]);
      // The program runs again with both sessions running, so each meter is read at a known state.
      await cli.clean(["up", "--expect-no-changes", "--yes"]);
      expect(accountBooks(emulator, first.accountId)).toMatchObject({ started: 1, running: 1 });
      expect(accountBooks(emulator, second.accountId)).toMatchObject({ started: 1, running: 1 });
      const after = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as Record<string, any>;
      expect(after.usage).toEqual(await meterOf(first.apiKey));
      expect(after.secondUsage).toEqual(await meterOf(second.apiKey));
      // Not vacuous: each meter is its own account's, one session running of 5 and of 3.
      expect([after.usage.runningSessionsUsed, after.usage.runningSessionLimit]).toEqual([1, 5]);
      expect([after.secondUsage.runningSessionsUsed, after.secondUsage.runningSessionLimit]).toEqual([1, 3]);

      // The state: share links and both keys as ciphertext, and nowhere in plain text.
      const exported = await cli.exportText();
      const resources = JSON.parse(exported).deployment.resources as Array<Record<string, any>>;
      const sessions = resources.filter((r) => r.type === BROWSER_SESSION);
      expect(sessions.map((r) => r.id).sort()).toEqual([chrome!.vmId, firefox!.vmId].sort());
      for (const r of sessions) {
        expect(r.outputs.shareUrl.ciphertext, "shareUrl is a secret in the state").toEqual(expect.any(String));
        expect(r.outputs.shareUrlPath.ciphertext, "shareUrlPath is a secret in the state").toEqual(expect.any(String));
      }
      const explicit = resources.find((r) => r.type === "pulumi:providers:remote-browser" && r.urn.endsWith("::second"));
      expect(explicit!.inputs.apiKey.ciphertext, "the explicit provider's key is a secret in the state").toEqual(expect.any(String));
      const stackOutputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs;
      expect(stackOutputs.shareUrls.ciphertext, "shareUrls is a secret in the state").toEqual(expect.any(String));
      for (const secret of [first.apiKey, second.apiKey, chrome!.linkId, firefox!.linkId, ...Object.values(links)]) {
        expect(exported.includes(secret), "a key, link id or share link appears in stack export").toBe(false);
        expect(filesText(cli.stateDir).includes(secret), "a key, link id or share link appears in the state files").toBe(false);
      }

      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(emulator, first.accountId)).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
      expect(accountBooks(emulator, second.accountId)).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
      expect(await cli.resources()).toEqual([]);
    } finally {
      if (accountBooks(emulator, first.accountId).neverEnded + accountBooks(emulator, second.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
    }
  });

  it("pulumi import takes over a session started elsewhere, --out writes its program, destroy ends it; an unknown or ended id fails naming the cause and imports nothing; then, on the same stack, no drift declared with its inputs, the import option, ignoreChanges, aliases, retainOnDelete, protect and state delete", async () => {
    const account = newAccount(emulator);
    const cli = await stackOf("import", "import");
    try {
      // As a secret: `pulumi import` (CLI 3.248.0 to 3.259.0 at least) records the default provider with the
      // stack's config as it is, not as the provider's CheckConfig gives it back, so a key set as plain config
      // would be in the state in plain text after an import (it is not after an update: see the time-out test).
      await setSecret(cli, "remote-browser:apiKey", account.apiKey);
      const outside = await startOutside(account.apiKey, "firefox");
      emulator.control.setState(outside, "running"); // prepared: the import needs no waiting

      const out = path.join(cli.dir, "imported.yaml");
      const imported = await cli.ok(["import", BROWSER_SESSION, "review", outside, "--yes", "--protect=false", "--out", out]);
      expect(imported.stdout).toMatch(/=\s+1 imported/);
      // The one warning (the display repeats it on the row's lines): what the service cannot confirm, named.
      expectOnlyImportWarning(imported, outside);
      const session = (await cli.resources()).find((r) => r.type === BROWSER_SESSION)!;
      expect(session.id).toBe(outside);
      expect(session.inputs).toEqual({ browser: "firefox" });
      expect(session.outputs).toMatchObject({ vmId: outside, browser: "firefox", status: "running", browserName: "Mozilla Firefox" });

      // The generated program declares the session with its browser; as the program, it matches the state.
      const generated = parseYaml(fs.readFileSync(out, "utf8")) as { resources: Record<string, { type: string; properties: Record<string, unknown> }> };
      expect(generated.resources.review!.type).toMatch(/^remote-browser:(index:)?BrowserSession$/);
      expect(generated.resources.review!.properties).toEqual({ browser: "firefox" });
      fs.appendFileSync(path.join(cli.dir, "Pulumi.yaml"), fs.readFileSync(out, "utf8"));
      await cli.clean(["preview", "--expect-no-changes"]);

      // An id the service does not know, and a session that has ended: each fails, naming the cause.
      const ended = await startOutside(account.apiKey, "chrome");
      emulator.control.endSession(ended);
      const stateBefore = await cli.exportText();
      const sessionsBefore = accountBooks(emulator, account.accountId).sessions;
      const unknownId = "vm-000000000000000000000000";
      const unknown = await cli.fails(["import", BROWSER_SESSION, "ghost", unknownId, "--yes", "--protect=false"]);
      expect(text(unknown)).toContain(`reading session ${unknownId} by its id (pulumi import, or a get): the service knows no such session of the account whose key is configured`);
      const gone = await cli.fails(["import", BROWSER_SESSION, "gone", ended, "--yes", "--protect=false"]);
      expect(text(gone)).toContain(`reading session ${ended} by its id (pulumi import, or a get): the session has ended (state "deleted")`);
      // Nothing imported: the state as it was, the account's sessions as they were.
      expect(JSON.parse(await cli.exportText()).deployment.resources).toEqual(JSON.parse(stateBefore).deployment.resources);
      expect(accountBooks(emulator, account.accountId).sessions).toEqual(sessionsBefore);

      for (const where of [await cli.exportText(), filesText(cli.stateDir)]) {
        expect(where.includes(account.apiKey), "the key appears in the state").toBe(false);
      }

      await resourceOptions(cli, account, outside);

      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 3, running: 0, neverEnded: 0 });
      expect(emulator.control.sessions().find((s) => s.vmId === outside)!.status).not.toBe("running");
      expect(await cli.resources()).toEqual([]);
    } finally {
      if (accountBooks(emulator, account.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
    }
  });

  /**
   * The chain of the import test, on its stack and its imported session `review` (started elsewhere with
   * STARTED_URL): what each resource option and lifecycle command does to a session, as the options table of
   * docs/browser-session.md says. One engine run per step; the program is rewritten between them.
   */
  async function resourceOptions(cli: PulumiCli, account: { apiKey: string; accountId: string }, review: string) {
    const base = fs.readFileSync(path.join(programs, "import", "Pulumi.yaml"), "utf8");
    const program = (resources: Record<string, unknown>) => fs.writeFileSync(path.join(cli.dir, "Pulumi.yaml"), `${base}${stringifyYaml({ resources })}`);
    const session = (properties: Record<string, unknown>, options: Record<string, unknown> = {}) => ({ type: BROWSER_SESSION, properties, ...(Object.keys(options).length ? { options } : {}) });
    const urnOf = (name: string) => `urn:pulumi:dev::native-import::${BROWSER_SESSION}::${name}`;
    const status = (vmId: string) => emulator.control.sessions().find((s) => s.vmId === vmId)!.status;
    const recorded = async () =>
      (await cli.resources())
        .filter((r) => r.type === BROWSER_SESSION)
        .map((r) => `${r.urn.split("::").at(-1)} ${r.id}`)
        .sort();
    // Declared with the inputs it was started with, and the provider's own: no change (the url and the rest
    // are recorded as declared, unconfirmed), neither at preview nor at up.
    const declared = { browser: "firefox", url: STARTED_URL, shareLanguage: "de", readyTimeoutSeconds: 60 };
    program({ review: session(declared) });
    await cli.clean(["preview", "--expect-no-changes"]);

    // The import option: a second session taken in by the program, declared with its url; no change afterwards.
    const kept = await startOutside(account.apiKey, "chrome");
    emulator.control.setState(kept, "running");
    program({ review: session(declared), kept: session({ browser: "chrome", url: STARTED_URL }, { import: kept }) });
    const importedByOption = await cli.ok(["up", "--yes"]);
    expect(importedByOption.stdout).toMatch(/=\s+1 imported/);
    expectOnlyImportWarning(importedByOption, kept);
    await cli.clean(["preview", "--expect-no-changes"]);

    // That update recorded the program's inputs for `review`, settling its import: an input declared for the
    // first time now (the service runs the account's default language) replaces it, as on any session.
    program({ review: session({ ...declared, language: "de" }), kept: session({ browser: "chrome", url: STARTED_URL }, { import: kept }) });
    const settled = await cli.ok(["preview", "--diff"]);
    expect(settled.stdout).toMatch(/\+-\s*remote-browser:index:BrowserSession: \(replace\)[\s\S]*?\[urn=[^\]]*::review\][\s\S]*?\+ language\s*:/);

    // ignoreChanges: a changed url the program ignores is no change (and no new session).
    const ignoring = session({ ...declared, url: "https://changed.example.com/" }, { ignoreChanges: ["url"] });
    program({ review: ignoring, kept: session({ browser: "chrome", url: STARTED_URL }, { import: kept }) });
    await cli.clean(["preview", "--expect-no-changes"]);

    // aliases: renamed, the session is the same one, recorded under its new name.
    program({ renamed: session(declared, { aliases: [urnOf("review")] }), kept: session({ browser: "chrome", url: STARTED_URL }, { import: kept, retainOnDelete: true }) });
    await cli.clean(["up", "--yes"]);
    expect(await recorded()).toEqual([`kept ${kept}`, `renamed ${review}`].sort());

    // retainOnDelete: removed from the program, the session is dropped from the state and left running;
    // `--diff` names it by its id in the delete (the provider is not called, so it cannot say more).
    program({ renamed: session(declared, { aliases: [urnOf("review")], protect: true }) });
    const retained = await cli.clean(["up", "--yes", "--diff"]);
    // CLI 3.248 prints `(delete)`; newer ones mark the retained resource `(delete[retain])`.
    expect(retained.stdout).toMatch(new RegExp(`- ${BROWSER_SESSION}: \\(delete(\\[retain\\])?\\)\\s+\\[id=${kept}\\]`));
    expect(await recorded()).toEqual([`renamed ${review}`]);
    expect(status(kept)).toBe("running");

    // protect: destroy fails naming it, and ends nothing.
    const protectedDestroy = await cli.fails(["destroy", "--yes"]);
    expect(text(protectedDestroy)).toMatch(/protected/);
    expect(status(review)).toBe("running");

    // pulumi state delete (after unprotect): the session leaves the state and runs on.
    await cli.clean(["state", "unprotect", urnOf("renamed"), "--yes"]);
    await cli.clean(["state", "delete", urnOf("renamed"), "--yes"]);
    expect(await recorded()).toEqual([]);
    expect(status(review)).toBe("running");

    // The documented way to end sessions left running: import them back by id, then destroy (the caller's).
    program({});
    const file = path.join(cli.dir, "leftovers.json");
    fs.writeFileSync(file, JSON.stringify({ resources: [kept, review].map((id, i) => ({ type: BROWSER_SESSION, name: `leftover${i}`, id })) }));
    const back = await cli.ok(["import", "--file", file, "--yes", "--protect=false"]);
    expect(back.stdout).toMatch(/=\s+2 imported/);
    expect(accountBooks(emulator, account.accountId).running).toBe(2);
  }

  it("API version 7: up, refresh and destroy each put their warning on the session's own row, not the stack's", async () => {
    const account = newAccount(emulator);
    const cli = await stackOf("v7", "v7");
    await cli.clean(["config", "set", "remote-browser:baseUrl", emulator.v7BaseUrl]);
    await cli.clean(["config", "set", "remote-browser:apiVersion", "v7"]);
    await setSecret(cli, "remote-browser:apiKey", account.apiKey);
    // Each command succeeds, and the display puts its warning under the session (a stack's would go under
    // pulumi:pulumi:Stack, as refresh's and destroy's did before the plugin passed the engine's URN on).
    const onTheSession = (what: RegExp) => new RegExp(`${BROWSER_SESSION} \\(old\\):\\s+warning: BrowserSession \\S+ ${what.source}`);
    try {
      expect(text(await cli.ok(["up", "--yes"]))).toMatch(onTheSession(/was started with API version 7/));
      expect(text(await cli.ok(["refresh", "--yes"]))).toMatch(onTheSession(/API version 7 has no status operation; refresh keeps the recorded state/));
      expect(text(await cli.ok(["destroy", "--yes"]))).toMatch(onTheSession(/was started with API version 7, which cannot end sessions/));
    } finally {
      // Version 7 cannot end its sessions: the test ends its own, as the warning tells a user to.
      for (const s of accountBooks(emulator, account.accountId).sessions) emulator.control.endSession(s.vmId);
    }
  });

  it("customTimeouts.create shorter than the preparation: up fails naming it, the session is ended, and nothing is in the state", async () => {
    // Preparation is the emulator's setting for all its sessions: this test has an emulator of its own.
    const slow = await startEmulator({ prepMs: 10_000 });
    const cli = await stackOf("timeout", "timeout", slow);
    try {
      // The key as a user who forgot --secret sets it (from standard input all the same, never on a command
      // line): plain in Pulumi.dev.yaml, but the provider's CheckConfig hands it back as a secret, so the
      // default provider that the update records keeps only its ciphertext. (The update's history entry
      // records the stack's config as it is set, plain values in plain: that is the CLI's, not the state's.)
      await cli.clean(["config", "set", "remote-browser:apiKey"], slow.apiKey);
      // An import into this fresh stack would record that config, the key in clear text (the engine's import
      // takes the stack's config as it is): refused before anything is read or recorded.
      const imported = await cli.fails(["import", BROWSER_SESSION, "taken", "vm-000000000000000000000001", "--yes", "--protect=false"]);
      expect(text(imported)).toContain("refused, because remote-browser:apiKey is plain stack config and the import would record it in the state in clear text");
      expect(text(imported)).not.toContain(slow.apiKey);
      expect(await cli.exportText()).not.toContain(slow.apiKey);
      const up = await cli.fails(["up", "--yes"]);
      const [session] = slow.control.sessions();
      expect(slow.control.sessions().length).toBe(1);
      expect(text(up)).toContain(`session ${session!.vmId} was not running after 2 s`);
      expect(text(up)).toContain("customTimeouts.create");
      expect(text(up)).toContain("the session was ended");
      expect(slow.control.books()).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
      // The plugin sees the plain key in Pulumi.dev.yaml and says so at preview, naming the fix, never the key.
      expect(text(up)).toMatch(/remote-browser:apiKey is set as plain \(non-secret\) stack config.*`pulumi config set --secret remote-browser:apiKey`/);
      expect(text(up)).not.toContain(slow.apiKey);
      const resources = await cli.resources();
      expect(resources.filter((r) => r.type === BROWSER_SESSION)).toEqual([]);
      const provider = resources.find((r) => r.type === "pulumi:providers:remote-browser");
      expect(provider!.inputs.apiKey.ciphertext, "the default provider's key is a secret in the state").toEqual(expect.any(String));
      const checkpoints = path.join(cli.stateDir, "backend", ".pulumi", "stacks");
      expect(fs.readdirSync(checkpoints, { recursive: true }).length, "the backend's checkpoints are where this test reads them").toBeGreaterThan(0);
      for (const where of [await cli.exportText(), filesText(checkpoints)]) {
        expect(where.includes(slow.apiKey), "the key appears in the state").toBe(false);
      }
    } finally {
      if (slow.control.books().neverEnded > 0) await cli.run(["destroy", "--yes"]);
      await slow.close();
    }
  });

  it("Ctrl-C during up: the engine's Cancel ends the starting session, the up fails saying so, and nothing is in the state", async () => {
    // Preparation is the emulator's setting for all its sessions: this test has an emulator of its own.
    const slow = await startEmulator({ prepMs: 15_000 });
    const cli = await stackOf("cancel", "cancel", slow);
    try {
      await setSecret(cli, "remote-browser:apiKey", slow.apiKey);
      // Started as a user's terminal starts it; interrupted as Ctrl-C interrupts it (SIGINT, once).
      const up = cli.start(["up", "--yes"]);
      await vi.waitFor(() => expect(slow.control.sessions().map((s) => s.status)).toEqual(["starting"]), { timeout: 120_000, interval: 100 });
      up.child.kill("SIGINT");
      const result = await up.done;
      const output = text(result);
      const [session] = slow.control.sessions();
      expect(result.code, output).not.toBe(0);
      expect(output).toContain(`the update was cancelled while session ${session!.vmId} was starting; the session was ended`);
      expect(slow.control.books()).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
      expect(await sessionsOf(cli)).toEqual([]);
      // No pending operation is left behind: the next up starts the session, waits for it and complains of nothing.
      await cli.clean(["up", "--yes"]);
      expect(slow.control.books()).toMatchObject({ started: 2, running: 1 });
      await cli.clean(["destroy", "--yes"]);
      expect(slow.control.books()).toMatchObject({ running: 0, neverEnded: 0 });
    } finally {
      if (slow.control.books().neverEnded > 0) await cli.run(["destroy", "--yes"]);
      await slow.close();
    }
  });

  it("every replacement gives a new running session and ends the old one, on a running limit of 1 with no option; shareLanguage in place; preview --diff per property; customTimeouts.delete bounds destroy", async () => {
    // An emulator of its own: the test injects a slow remove at the end.
    const own = await startEmulator({ prepMs: 300 });
    own.control.settings({ runningLimit: 1 });
    const second = newAccount(own, { runningLimit: 2 });
    const cli = await stackOf("replace", "replace", own);
    const urn = (name: string) => `urn:pulumi:dev::native-replace::${BROWSER_SESSION}::${name}`;
    const status = (vmId: string) => own.control.sessions().find((s) => s.vmId === vmId)!.status;
    const ids = async () => JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as { mainId: string; besideId: string };
    /** After a replacement: a new session, running, and the old one ended. */
    const replaced = async (name: "mainId" | "besideId", old: string) => {
      const now = (await ids())[name];
      expect(now).not.toBe(old);
      expect(status(now)).toBe("running");
      expect(status(old)).toMatch(/^(stopping|deleted)$/);
      return now;
    };
    try {
      await setSecret(cli, "remote-browser:apiKey", own.apiKey);
      await setSecret(cli, "secondKey", second.apiKey);
      await cli.clean(["config", "set", "secondBaseUrl", own.apiBaseUrl]);
      await cli.clean(["config", "set", "url", "https://pr-43.preview.example.com/"]);
      await cli.clean(["config", "set", "readyTimeoutSeconds", "300"]);
      await cli.clean(["config", "set", "besideLanguage", "de"]);
      await cli.clean(["up", "--yes"]);
      let { mainId, besideId } = await ids();
      const link = async () => JSON.parse((await cli.ok(["stack", "output", "--json", "--show-secrets"])).stdout).besideLink as string;
      const firstLink = await link();
      expect(firstLink).toMatch(/\/de\/s\?/);

      // An input the service is sent replaces; the viewer language changes in place. `preview --diff` says
      // which, per property.
      await cli.clean(["config", "set", "url", "https://pr-43-b.preview.example.com/"]);
      await cli.clean(["config", "set", "besideLanguage", "ja"]);
      const preview = await cli.clean(["preview", "--diff"]);
      expect(preview.stdout).toMatch(/\+-\s*remote-browser:index:BrowserSession: \(replace\)[\s\S]*?\[urn=[^\]]*::main\][\s\S]*?~ url\s*:/);
      expect(preview.stdout).toMatch(/~\s*remote-browser:index:BrowserSession: \(update\)[\s\S]*?\[urn=[^\]]*::beside\][\s\S]*?~ shareLanguage\s*:\s*"de" => "ja"/);
      await cli.clean(["up", "--yes"]);
      mainId = await replaced("mainId", mainId);
      expect((await ids()).besideId).toBe(besideId);
      expect(await link()).toBe(firstLink.replace("/de/s?", "/ja/s?"));
      expect(accountBooks(own, second.accountId)).toMatchObject({ started: 1, running: 1 });

      // replaceOnChanges on an input the service is not sent: the same idempotency key as the old session's.
      await cli.clean(["config", "set", "readyTimeoutSeconds", "120"]);
      await cli.clean(["up", "--yes"]);
      mainId = await replaced("mainId", mainId);

      // --replace, --target-replace and a taint: the engine asks the provider neither check with the old
      // inputs nor diff, and replaces create-before-delete. But each session is recorded
      // refresh_before_update, so the plain `up` reads it first, which shows the provider the session it
      // replaces: the replacement is a new one, and on the limit of 1 the old one is ended first, saying so.
      expect((await sessionsOf(cli)).map((r) => r.refreshBeforeUpdate)).toEqual([true, true]);
      const replace = await cli.ok(["up", "--yes", "--replace", urn("main")]);
      expect(text(replace)).toContain(`leaves no room for the replacement beside session ${mainId}, so that session was ended first`);
      expect(text(replace)).not.toContain("was not replaced");
      mainId = await replaced("mainId", mainId);
      await cli.clean(["up", "--yes", "--target-replace", urn("beside")]);
      besideId = await replaced("besideId", besideId);
      await cli.clean(["state", "taint", urn("main")]);
      const tainted = await cli.ok(["up", "--yes"]);
      expect(text(tainted)).toContain(`so that session was ended first`);
      expect(text(tainted)).not.toContain("was not replaced");
      mainId = await replaced("mainId", mainId);
      expect(own.control.books().neverEnded).toBe(2);

      // A remove slower than beside's customTimeouts.delete (2 s): destroy fails naming it, and keeps it.
      own.control.fault({ operation: "remove", kind: "delay_before", delayMs: 8_000, count: 1 });
      const destroy = await cli.fails(["destroy", "--yes"]);
      expect(text(destroy)).toContain(`ending session ${besideId} did not finish within the resource's customTimeouts.delete (2 s), so it stays in the stack`);
      expect((await sessionsOf(cli)).map((r) => r.id)).toContain(besideId);
      await cli.clean(["destroy", "--yes"]);
      expect(own.control.books()).toMatchObject({ running: 0, neverEnded: 0 });
    } finally {
      if (own.control.books().neverEnded > 0) await cli.run(["destroy", "--yes"]);
      await own.close();
    }
  });

  it("two stacks of one project and stack name on two file backends, one account: a session each, and destroying one leaves the other's running", async () => {
    const account = newAccount(emulator);
    // Two copies of one program, each with a backend (state folder) of its own, both stack `dev`: the
    // README's setup, no idempotencySecret.
    const [a, b] = [await stackOf("cancel", "twin-a"), await stackOf("cancel", "twin-b")];
    try {
      for (const cli of [a, b]) await setSecret(cli, "remote-browser:apiKey", account.apiKey);
      await a.clean(["up", "--yes"]);
      await b.clean(["up", "--yes"]);
      const [sessionA] = await sessionsOf(a);
      const [sessionB] = await sessionsOf(b);
      expect(sessionB!.id).not.toBe(sessionA!.id);
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 2, running: 2 });
      await b.clean(["destroy", "--yes"]);
      expect(emulator.control.sessions().find((s) => s.vmId === sessionA!.id)!.status).toBe("running");
      await a.clean(["refresh", "--yes", "--expect-no-changes"]);
      await a.clean(["destroy", "--yes"]);
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 2, running: 0, neverEnded: 0 });
    } finally {
      for (const cli of [a, b]) if (accountBooks(emulator, account.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
    }
  });

  it("deleteBeforeReplace: false on a running limit of 1: a url change ends the old session first, with a warning, and the replacement runs", async () => {
    await onFullLimit("full-limit", async ({ cli, account, first }) => {
      await cli.clean(["config", "set", "url", "https://example.com/second"]);
      const up = await cli.ok(["up", "--yes"]);
      expect(text(up)).toContain(`leaves no room for the replacement beside session ${first.id}, so that session was ended first`);
      await expectReplacedThenDestroyed(cli, account, first.id);
    });
  });

  it("--replace in the update that changes a provider setting, on a running limit of 1: the new provider process, which the engine shows nothing of the session, still replaces it and ends the old one", async () => {
    const urn = "urn:pulumi:dev::native-full-limit::remote-browser:index:BrowserSession::review";
    await onFullLimit("setting-and-replace", async ({ cli, account, first }) => {
      // The engine reads the session (refresh_before_update) in a process of the recorded settings, then
      // serves the resource from a new process configured with the changed one, which is shown nothing of
      // it: --replace neither checks with the recorded inputs nor diffs.
      await cli.clean(["config", "set", "remote-browser:requestTimeoutSeconds", "20"]);
      const up = await cli.ok(["up", "--yes", "--replace", urn]);
      expect(text(up)).not.toContain("was not replaced");
      expect(text(up)).toContain(`leaves no room for the replacement beside session ${first.id}, so that session was ended first`);
      const [second] = await sessionsOf(cli);
      expect(second!.id).not.toBe(first.id);
      expect(emulator.control.sessions().find((s) => s.vmId === second!.id)!.status).toBe("running");
      expect(emulator.control.sessions().find((s) => s.vmId === first.id)!.status).toMatch(/^(stopping|deleted)$/);
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 2, running: 1 });

      // Another setting, and a taint: the same.
      await cli.clean(["config", "set", "remote-browser:waitForCapacitySeconds", "0"]);
      await cli.clean(["state", "taint", urn]);
      const tainted = await cli.ok(["up", "--yes"]);
      expect(text(tainted)).not.toContain("was not replaced");
      const [third] = await sessionsOf(cli);
      expect(third!.id).not.toBe(second!.id);
      expect(emulator.control.sessions().find((s) => s.vmId === third!.id)!.status).toBe("running");
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 3, running: 1 });
      await cli.clean(["preview", "--expect-no-changes"]);
      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ running: 0, neverEnded: 0 });
    });
  });

  it("a pulumi up killed while the session starts: the plugin exits, the next up adopts the same session, destroy ends it", async () => {
    const own = await startEmulator({ prepMs: 300 });
    const cli = await stackOf("cancel", "killed", own);
    try {
      await setSecret(cli, "remote-browser:apiKey", own.apiKey);
      own.control.preparation({ paused: true });
      // The CLI is the engine: killed as a CI runner kills a job, with no chance to cancel anything.
      const { child: up, done: exited } = cli.start(["up", "--yes"]);
      const session = await until(() => own.control.sessions()[0], 120_000, "the session to be created");
      const children = childPids(up.pid!);
      const plugins = children.filter((pid) => /pulumi-resource-remote-browser/.test(commandOf(pid)));
      const languageHosts = children.filter((pid) => /pulumi-language-yaml/.test(commandOf(pid)));
      expect(plugins.length).toBeGreaterThan(0);
      up.kill("SIGKILL");
      await exited;
      // pulumi-language-yaml (1.32.0) looks at its engine every five minutes and idles on until then: it is
      // not this package's, and a job runner that kills the whole process group takes it along. So does this.
      for (const pid of languageHosts) if (isRunning(pid)) process.kill(pid, "SIGKILL");

      // Orphaned, the plugin exits without ending the session: the engine that would record it is gone.
      for (const pid of plugins) await until(() => !isRunning(pid), 60_000, "the orphaned plugin to exit");
      expect(own.control.books().removeCalls).toBe(0);
      expect(own.control.sessions().map((s) => s.status)).toEqual(["starting"]);

      // The killed update's lock on the stack, then its pending create, as the README's table of failures says.
      await cli.ok(["cancel", "--yes"]);
      await cli.ok(["refresh", "--clear-pending-creates", "--yes"]);
      own.control.preparation({ paused: false });
      await cli.clean(["up", "--yes"]);
      // The same idempotency key (from the resource's URN): the service answers with the same session.
      expect(own.control.books().started).toBe(1);
      const [recorded] = await sessionsOf(cli);
      expect(recorded!.id).toBe(session.vmId);
      expect(own.control.sessions()[0]!.status).toBe("running");
      await cli.clean(["refresh", "--yes", "--expect-no-changes"]);
      await cli.clean(["destroy", "--yes"]);
      expect(own.control.books()).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
    } finally {
      own.control.preparation({ paused: false });
      if (own.control.books().neverEnded > 0) await cli.run(["destroy", "--yes"]);
      await own.close();
    }
  });

  it("a session the service ended behind Pulumi's back: a plain up reads it first (refresh_before_update) and starts a running one in its place, on a running limit of 1", async () => {
    const account = newAccount(emulator, { runningLimit: 1 });
    const cli = await stackOf("cancel", "ended-behind", emulator);
    try {
      await setSecret(cli, "remote-browser:apiKey", account.apiKey);
      await cli.clean(["up", "--yes"]);
      const [first] = await sessionsOf(cli);
      emulator.control.endSession(first!.id);
      // No refresh, no flag: the session's own mark has the engine read it before the update.
      const up = await cli.clean(["up", "--yes"]);
      expect(up.stdout).toMatch(/\+\s+1 created/);
      await expectReplacedThenDestroyed(cli, account, first!.id);
    } finally {
      if (accountBooks(emulator, account.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
    }
  });

  it("a plugin the engine attaches to (PULUMI_DEBUG_PROVIDERS, as provider test harnesses run one) learns the engine's address from Handshake: its progress line and warning reach the update", async () => {
    const account = newAccount(emulator);
    const cli = await stackOf("cancel", "attached", emulator);
    // Started by the test, not the engine: no engine address on its command line.
    const plugin = spawn(path.join(modules, ".bin", "pulumi-resource-remote-browser"), [], { cwd: cli.dir, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const port = await new Promise<string>((resolve, reject) => {
        plugin.stdout!.once("data", (d) => resolve(String(d).trim()));
        plugin.once("exit", (code) => reject(new Error(`the plugin exited (${code})`)));
      });
      (cli.env as Record<string, string>).PULUMI_DEBUG_PROVIDERS = `remote-browser:${port}`;
      // A key set as plain config: the plugin warns at CheckConfig (over the engine's Log RPC).
      await cli.clean(["config", "set", "remote-browser:apiKey"], account.apiKey);
      const up = await cli.ok(["up", "--yes"]);
      expect(text(up)).toMatch(/warning: remote-browser:apiKey is set as plain \(non-secret\) stack config/);
      expect(up.stdout).toMatch(/patient\s+created[^\n]*running after \d+s/);
      // The next update reads the session first (refresh-before-update loads one more provider instance,
      // which handshakes again): it keeps the configuration and changes nothing.
      await cli.ok(["up", "--yes", "--expect-no-changes"]);
      await cli.ok(["destroy", "--yes"]);
      expect(accountBooks(emulator, account.accountId)).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
    } finally {
      if (accountBooks(emulator, account.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
      plugin.kill("SIGKILL");
    }
  });

  it("a wrong key on the explicit provider fails the preview with a clear error, without printing the key, and nothing starts; a bad setting of the explicit provider is refused at preview by CheckConfig, naming the setting but never printing its value", async () => {
    const account = newAccount(emulator);
    const wrongKey = `rb_test_${"0".repeat(24)}wrongkey`;
    const cli = await stackOf("provider-settings", "provider-settings");
    await setSecret(cli, "remote-browser:apiKey", account.apiKey);
    await setSecret(cli, "secondKey", wrongKey);
    await cli.clean(["config", "set", "secondBaseUrl", emulator.apiBaseUrl]);

    const preview = await cli.fails(["preview"]);
    expect(text(preview)).toMatch(/BrowserSession \(firefox\):\s+error: .*the service refused the API key/);
    expect(text(preview).includes(wrongKey), "the refused key is printed").toBe(false);
    expect(accountBooks(emulator, account.accountId).started).toBe(0);

    // With the second account's key: every failure below is the setting's (the same program previews clean
    // with that key once the settings are in range: the control at the end).
    await setSecret(cli, "secondKey", newAccount(emulator).apiKey);

    await cli.clean(["config", "set", "secondApiVersion", "v9"]);
    const version = await cli.fails(["preview"]);
    expect(text(version)).toMatch(/providers:remote-browser \(second\):\s+error: .*the provider's apiVersion must be "v8" or "v7" \(the value given is neither; it is not repeated here\)/);
    // The engine prints a failure on a property with that property's value: a key pasted there would show.
    expect(text(version)).not.toContain("v9");

    await cli.clean(["config", "set", "secondApiVersion", "v8"]);
    await cli.clean(["config", "set", "secondRequestTimeoutSeconds", "900"]);
    const timeout = await cli.fails(["preview"]);
    expect(text(timeout)).toMatch(/providers:remote-browser \(second\):\s+error: .*the provider's requestTimeoutSeconds must be a number of seconds from 0\.1 to 300, got 900/);
    expect(text(timeout)).not.toMatch(/property requestTimeoutSeconds value/);

    // A password in the address: refused, and printed nowhere -- not by the provider, not by the engine (which
    // printed `property baseUrl value {https://someone:pw@…} has a problem`), not in the state or its backups.
    await cli.clean(["config", "set", "secondRequestTimeoutSeconds", "30"]);
    const password = `pw-${Math.random().toString(36).slice(2)}-hunter2`;
    await cli.clean(["config", "set", "secondBaseUrl", emulator.apiBaseUrl.replace("://", `://someone:${password}@`)]);
    const credentials = await cli.fails(["preview"]);
    expect(text(credentials)).toMatch(/providers:remote-browser \(second\):\s+error: .*the provider's baseUrl \(or REMOTE_BROWSER_BASE_URL\) carries a user name or password/);
    const up = await cli.fails(["up", "--yes"]);
    for (const where of [text(credentials), text(up), filesText(cli.stateDir)]) expect(where.includes(password), "the password is printed or stored").toBe(false);
    expect(accountBooks(emulator, account.accountId).started).toBe(0);
    await cli.clean(["config", "set", "secondBaseUrl", emulator.apiBaseUrl]);

    // The control: with the second account's key and settings in range the same program previews clean.
    await cli.clean(["config", "set", "secondRequestTimeoutSeconds", "30"]);
    await cli.clean(["preview"]);

    // A key in the project's config (Pulumi.yaml, usually committed) is warned about, by name, never by value.
    const projectKey = `rb_project_${"0".repeat(20)}`;
    const projectFile = path.join(cli.dir, "Pulumi.yaml");
    fs.writeFileSync(projectFile, fs.readFileSync(projectFile, "utf8").replace(/^config:\n/m, `config:\n  remote-browser:apiKey:\n    value: ${projectKey}\n`));
    const warned = await cli.run(["preview"]);
    expect(warned.code, text(warned)).toBe(0);
    expect(text(warned)).toMatch(/warning: remote-browser:apiKey is set in the project's config \(the config: block of Pulumi\.yaml\), which holds no secrets/);
    expect(text(warned).includes(projectKey), "the key is printed").toBe(false);
  });
});

describe.concurrent("one plugin process for a program's sessions and its ReviewSessions on one provider", () => {
  it.each([
    ["registered without a version", false],
    ["registered with the package's version", true],
  ])("%s: the engine starts the plugin once for the update, and every session runs in it", async (_label, versioned) => {
    const own = await startEmulator({ prepMs: 300 });
    const cli = await stackOf("shared-provider", versioned ? "shared-versioned" : "shared", own);
    try {
      await setSecret(cli, "remote-browser:apiKey", own.apiKey);
      if (versioned) {
        const project = path.join(cli.dir, "Pulumi.yaml");
        const { version } = JSON.parse(fs.readFileSync(path.join(modules, "pulumi-remote-browser", "package.json"), "utf8")) as { version: string };
        const written = fs.readFileSync(project, "utf8").replace(/^( {4}type: remote-browser:index:\w+)$/gm, `$1\n    options:\n      version: ${version}`);
        expect(written.match(/^ {6}version: /gm)).toHaveLength(2);
        fs.writeFileSync(project, written);
      }
      // A preview of the new stack first: there the component's provider has no id yet.
      await cli.clean(["preview"]);
      // The sessions wait in "starting" while the update's plugin processes are counted. The update alone
      // (no preview first), with the engine's log of each call to a provider, which names the instance.
      own.control.preparation({ paused: true });
      const { child: up, done } = cli.start(["up", "--yes", "--skip-preview", "-v=7", "--logtostderr"]);
      await until(() => own.control.sessions().length === 2, 120_000, "both sessions to be created");
      const plugins = childPids(up.pid!).filter((pid) => /pulumi-resource-remote-browser/.test(commandOf(pid)));
      own.control.preparation({ paused: false });
      const result = await done;
      expect(result.code, result.stderr.slice(-4000)).toBe(0);
      expect(plugins, "the plugin processes of the update").toHaveLength(1);
      // The engine's log names the provider instance (one per process) each call went to.
      const served = new Map<string, Set<string>>();
      for (const [, instance, call, subject] of result.stderr.matchAll(/(Provider\[0x[0-9a-f]+\])\.(Construct|Create)\(([^,)]+(?:, [^,)]+)?)/g)) {
        if (!served.has(instance!)) served.set(instance!, new Set());
        served.get(instance!)!.add(`${call} ${subject!.split("::").at(-1)}`);
      }
      expect([...served.values()].map((calls) => [...calls].sort())).toEqual([["Construct remote-browser:index:ReviewSessions, review", "Create review-firefox", "Create session"]]);
      expect(own.control.books()).toMatchObject({ started: 2, running: 2 });

      await cli.clean(["preview", "--expect-no-changes"]);
      await cli.clean(["destroy", "--yes"]);
      expect(own.control.books()).toMatchObject({ started: 2, running: 0, neverEnded: 0 });
    } finally {
      own.control.preparation({ paused: false });
      if (own.control.books().neverEnded > 0) await cli.run(["destroy", "--yes"]);
      await own.close();
    }
  });
});
