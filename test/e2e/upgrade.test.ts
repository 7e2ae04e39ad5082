import * as fs from "node:fs";
import * as path from "node:path";
import { expect, inject, it } from "vitest";
import type { SessionSeed } from "../../emulator";
import { ownerFingerprint, serviceAddress, legacyFingerprint } from "../../core/state";
import { withStack, type E2EStack } from "./harness";
import { REVIEW_SESSIONS_FILE, REVIEW_STATE_FILE, UPGRADE_API_KEY, UPGRADE_PASSPHRASE, UPGRADE_SESSIONS_FILE, UPGRADE_STATE_FILE } from "./upgrade/fixture";

/**
 * A stack written by release 0.1.0 (recorded in test/e2e/upgrade/ by record.ts), taken over by this
 * version's packed package: its stored provider, its outputs and its secrets must all still work, with no
 * session replaced and none lost -- the way pulumi-command's recorded-state test guards its users.
 */
process.env.PULUMI_CONFIG_PASSPHRASE = UPGRADE_PASSPHRASE;

const TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";
const DYNAMIC_TYPE = TYPE;
const NATIVE_TYPE = "remote-browser:index:BrowserSession";
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "upgrade", name), "utf8");

/** The sessions of one `stack export`: their ids (sorted), their recorded owners and their state layout versions. */
async function recordedSessions(stack: E2EStack): Promise<{ ids: string[]; owners: unknown[]; versions: unknown[] }> {
  const exported = JSON.parse(await stack.exportState());
  const sessions = (exported.deployment.resources ?? []).filter((r: { type: string }) => r.type === TYPE);
  return {
    ids: sessions.map((r: { id: string }) => r.id).sort(),
    owners: sessions.map((r: { outputs: Record<string, unknown> }) => r.outputs.owner),
    versions: sessions.map((r: { outputs: Record<string, unknown> }) => r.outputs.__stateVersion),
  };
}

async function sessionIds(stack: E2EStack): Promise<string[]> {
  return (await recordedSessions(stack)).ids;
}

async function recordedOwners(stack: E2EStack): Promise<unknown[]> {
  return (await recordedSessions(stack)).owners;
}

const active = (stack: E2EStack) =>
  stack.emulator.control
    .sessions()
    .filter((s) => s.status === "running" || s.status === "starting")
    .map((s) => s.vmId)
    .sort();

interface Recorded {
  apiBaseUrl: string;
  sessions: SessionSeed[];
}

/** The service part of an owner fingerprint (`svc-…`, a hash of the service's address). */
const servicePart = (baseUrl: string) => ownerFingerprint({ contact: "", subscriptions: [], service: serviceAddress(baseUrl) }).split("@")[1];

/**
 * The recorded sessions into this test's service, and the recorded state into a fresh stack. The state
 * names the service address it was made with (the default provider's recorded settings, used by refresh,
 * and the service part of each session's owner fingerprint); here the same service has another port. The
 * runner creates a stack only for up and preview: this one is made empty, to import into.
 */
async function importRecorded(stack: E2EStack, stateFile: string, recorded: Recorded): Promise<void> {
  for (const seed of recorded.sessions) stack.emulator.control.seedSession(seed);
  fs.writeFileSync(path.join(stack.workDir, "Pulumi.yaml"), "name: e2e\nruntime: nodejs\n");
  const created = await stack.cli(["stack", "init"]);
  expect(created.code, created.stderr).toBe(0);
  const state = fixture(stateFile)
    .split(recorded.apiBaseUrl)
    .join(stack.emulator.apiBaseUrl)
    .split(`@${servicePart(recorded.apiBaseUrl)}`)
    .join(`@${servicePart(stack.emulator.apiBaseUrl)}`);
  expect(state).not.toContain(UPGRADE_API_KEY);
  const file = path.join(stack.workDir, "recorded-state.json");
  fs.writeFileSync(file, state, { mode: 0o600 });
  const imported = await stack.cli(["stack", "import", "--file", file]);
  expect(imported.code, imported.stderr).toBe(0);
}

it.concurrent(
  "refreshes, previews without changes, updates in place and destroys a stack recorded with release 0.1.0, refreshing its sessions recorded with the previous fingerprint format into the current one",
  async () => {
    const { projectDir } = inject("e2e");
    const recorded = JSON.parse(fixture(UPGRADE_SESSIONS_FILE)) as Recorded;
    const vmIds = recorded.sessions.map((s) => s.vmId).sort();
    expect(vmIds).toHaveLength(3);

    await withStack(
      "upgrade.js",
      async (stack) => {
        await importRecorded(stack, UPGRADE_STATE_FILE, recorded);
        // The service still holds the recorded sessions.
        expect(active(stack)).toEqual(vmIds);
        expect(await sessionIds(stack)).toEqual(vmIds);

        const config = { readyTimeoutSeconds: "120" };
        // 0.1.0 recorded no layout version (layout 1, inferred from the missing owner record).
        expect((await recordedSessions(stack)).versions).toEqual(vmIds.map(() => undefined));
        // The first refresh records the account fingerprint that 0.1.0 did not, and the layout version (an
        // update of each session's outputs); from then on refresh finds nothing to change.
        const first = await stack.run("refresh");
        expect(first.changes.delete ?? 0).toBe(0);
        const { ids, owners, versions } = await recordedSessions(stack);
        expect(ids).toEqual(vmIds);
        expect(versions).toEqual(vmIds.map(() => 3));
        expect(owners).toHaveLength(3);
        // Salted per session: three records that cannot be linked to each other, of one service.
        expect(new Set(owners).size).toBe(3);
        for (const owner of owners) expect(owner).toMatch(/^acct2-[0-9a-f]{16}-[0-9a-f]{16}(\+[0-9a-f]{16})*@svc-[0-9a-f]{12}$/);
        expect(new Set(owners.map((o) => String(o).split("@")[1])).size).toBe(1);

        // The same sessions as the release before the salted fingerprint recorded them (a hash of the lower-cased
        // contact, and no layout version): refresh recognises that record (layout 2) and replaces it with the current one.
        const legacy = legacyFingerprint("developer@example.test", stack.emulator.apiBaseUrl);
        const exported = JSON.parse(await stack.exportState());
        for (const r of exported.deployment.resources ?? []) {
          if (r.type !== TYPE) continue;
          r.outputs.owner = legacy;
          delete r.outputs.__stateVersion;
        }
        const stateFile = path.join(stack.workDir, "previous-format-state.json");
        fs.writeFileSync(stateFile, JSON.stringify(exported), { mode: 0o600 });
        const imported = await stack.cli(["stack", "import", "--file", stateFile]);
        expect(imported.code, imported.stderr).toBe(0);
        expect(await recordedOwners(stack)).toEqual(vmIds.map(() => legacy));
        const second = await stack.run("refresh");
        expect(second.changes.delete ?? 0).toBe(0);
        const refreshed = await recordedSessions(stack);
        expect(refreshed.ids).toEqual(vmIds);
        expect(refreshed.owners).toHaveLength(3);
        for (const owner of refreshed.owners) expect(owner).toMatch(/^acct2-/);
        expect(refreshed.versions).toEqual(vmIds.map(() => 3));

        await stack.run("refresh", { expectNoChanges: true });
        await stack.run("preview", { config, expectNoChanges: true });

        const updated = await stack.run("up", { config: { readyTimeoutSeconds: "240" } });
        expect(updated.changes.replace ?? 0).toBe(0);
        expect(updated.changes.create ?? 0).toBe(0);
        expect(updated.changes.delete ?? 0).toBe(0);
        expect(updated.changes.update).toBeGreaterThanOrEqual(2);
        const outputs = updated.outputs.vmIds as { full: string; plain: string; review: Record<string, string> };
        expect([outputs.full, outputs.plain, outputs.review.edge].sort()).toEqual(vmIds);
        expect(stack.emulator.control.books().started).toBe(0);
        expect(active(stack)).toEqual(vmIds);
        await stack.run("preview", { config: { readyTimeoutSeconds: "240" }, expectNoChanges: true });

        await stack.run("destroy");
        expect(await sessionIds(stack)).toEqual([]);
        expect(active(stack)).toEqual([]);
        expect(stack.emulator.control.books().started).toBe(0);
      },
      { emulator: { apiKey: UPGRADE_API_KEY }, pathDirs: [path.join(projectDir, "node_modules", ".bin")], name: "upgrade" },
    );
  },
);

it.concurrent("moves the dynamic sessions of a recorded ReviewSessions to the plugin's BrowserSession in place: same ids, same links, nothing started", async () => {
  const { projectDir } = inject("e2e");
  const recorded = JSON.parse(fixture(REVIEW_SESSIONS_FILE)) as Recorded;
  const vmIds = recorded.sessions.map((s) => s.vmId).sort();
  expect(vmIds).toHaveLength(2);
  const children = async (stack: E2EStack, text?: string) => {
    const exported = JSON.parse(text ?? (await stack.exportState()));
    return (exported.deployment.resources ?? [])
      .filter((r: { parent?: string; type: string }) => r.parent?.endsWith("::review") && r.type !== "remote-browser:index:ReviewSessions")
      .map((r: { type: string; id: string }) => ({ type: r.type, id: r.id }))
      .sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
  };
  // The share links as the CLI shows them (the runner's outputs are the CLI's: browser-session.test.ts).
  const links = async (stack: E2EStack) => {
    const shown = await stack.cli(["stack", "output", "shareUrls", "--json", "--show-secrets"]);
    expect(shown.code, shown.stderr).toBe(0);
    return JSON.parse(shown.stdout) as unknown;
  };

  await withStack(
    "upgrade-review.js",
    async (stack) => {
      await importRecorded(stack, REVIEW_STATE_FILE, recorded);
      expect(active(stack)).toEqual(vmIds);
      // Each session's recorded owner names this service: refresh and delete check it.
      const recordedState = await stack.exportState();
      expect(recordedState).toContain(`@${servicePart(stack.emulator.apiBaseUrl)}`);
      expect(await children(stack, recordedState)).toEqual(vmIds.map((id) => ({ type: DYNAMIC_TYPE, id })));
      const recordedLinks = await links(stack);
      expect(Object.keys(recordedLinks as object).sort()).toEqual(["chrome", "firefox"]);

      const config = { readyTimeoutSeconds: "120" };
      // The recorded sessions as they are, read by their own stored provider.
      await stack.run("refresh", { expectNoChanges: true });
      // The move: the engine follows the alias and finds nothing to change, at preview as at up (the
      // stack, the component and its two sessions the same); only the recorded types and provider change.
      await stack.run("preview", { config, expectNoChanges: true });
      const moved = await stack.run("up", { config });
      expect(moved.changes).toEqual({ same: 4 });
      expect(await children(stack)).toEqual(vmIds.map((id) => ({ type: NATIVE_TYPE, id })));
      expect(await links(stack)).toEqual(recordedLinks);
      expect(Object.values(moved.outputs.sessionIds as Record<string, string>).sort()).toEqual(vmIds);
      expect(stack.emulator.control.books().started).toBe(0);
      expect(active(stack)).toEqual(vmIds);

      // The plugin reads them now, and finds nothing to change; it records them without the dynamic
      // provider's bookkeeping (its stored code and its keys), but for the state's layout version, which the
      // first refresh (the dynamic provider's, above) recorded and no diff compares.
      await stack.run("refresh", { expectNoChanges: true });
      const outputsOf = JSON.parse(await stack.exportState()).deployment.resources.filter((r: { type: string }) => r.type === NATIVE_TYPE);
      expect(outputsOf).toHaveLength(2);
      for (const r of outputsOf) expect(Object.keys(r.outputs).filter((k) => k.startsWith("__"))).toEqual(["__stateVersion"]);
      for (const r of outputsOf) expect(r.outputs.__stateVersion).toBe(3);
      await stack.run("preview", { config, expectNoChanges: true });
      expect(await links(stack)).toEqual(recordedLinks);

      const updated = await stack.run("up", { config: { readyTimeoutSeconds: "240" } });
      expect(updated.changes.update).toBe(2);
      expect(updated.changes.create ?? 0).toBe(0);
      expect(updated.changes.replace ?? 0).toBe(0);
      expect(updated.changes.delete ?? 0).toBe(0);
      expect(await links(stack)).toEqual(recordedLinks);
      await stack.run("preview", { config: { readyTimeoutSeconds: "240" }, expectNoChanges: true });

      const exported = await stack.exportState(); // a preview writes no state: the update's
      expect(await children(stack, exported)).toEqual(vmIds.map((id) => ({ type: NATIVE_TYPE, id })));
      for (const secret of [stack.emulator.apiKey, UPGRADE_API_KEY, ...recorded.sessions.map((s) => s.linkId)]) {
        expect(exported.includes(secret as string), "a secret appears in stack export").toBe(false);
        expect(stack.stateFilesText().includes(secret as string), "a secret appears in the state files").toBe(false);
      }

      await stack.run("destroy");
      expect(await children(stack)).toEqual([]);
      expect(active(stack)).toEqual([]);
      expect(stack.emulator.control.books().started).toBe(0);
    },
    { emulator: { apiKey: UPGRADE_API_KEY }, pathDirs: [path.join(projectDir, "node_modules", ".bin")], name: "upgrade" },
  );
});
