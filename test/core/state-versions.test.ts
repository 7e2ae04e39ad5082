import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { AccountMismatchError } from "../../client/errors";
import {
  CURRENT_STATE_VERSION,
  checkV3,
  inferredStateVersion,
  legacyFingerprint,
  migrateV1,
  migrateV2,
  recordedState,
  serviceAddress,
  servicePart,
  upgradeState,
  type OwnerIdentity,
  type SessionStateV1,
  type SessionStateV2,
  type SessionStateV3,
} from "../../core/state";
import { BrowserSessionAdapter } from "../../plugin/resource";
import type { SessionSeed } from "../../emulator";
import { thrown, useEmulator } from "../helpers/emulator";

/**
 * The versioned layouts of a session's record (core/state.ts), on the records of the states the earlier
 * releases wrote (test/e2e/upgrade/: release 0.1.0's, and a ReviewSessions' dynamic sessions recorded with
 * the salted fingerprint before versions were recorded), and what create, import and refresh record.
 */
const t = useEmulator();
const URN = "urn:pulumi:pr-7::review::remote-browser:index:BrowserSession::app";

const upgradeDir = path.join(__dirname, "..", "e2e", "upgrade");
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(upgradeDir, name), "utf8"));

interface RecordedSession {
  id: string;
  outputs: Record<string, unknown>;
}
/** The BrowserSessions of a recorded `stack export`, and the service they were recorded against. */
function recorded(state: string, sessions: string): { records: RecordedSession[]; apiBaseUrl: string; seeds: SessionSeed[] } {
  const exported = fixture(state);
  const records = (exported.deployment.resources as Array<RecordedSession & { type: string }>).filter((r) => r.type.endsWith(":BrowserSession"));
  const { apiBaseUrl, sessions: seeds } = fixture(sessions) as { apiBaseUrl: string; sessions: SessionSeed[] };
  return { records, apiBaseUrl, seeds };
}
const V010 = recorded("state-v0.1.0.json", "sessions-v0.1.0.json");
const REVIEW = recorded("state-dynamic-review.json", "sessions-dynamic-review.json");

/** The account the recorded sessions belonged to (the emulator's default account), at `baseUrl`. */
const developer = (baseUrl: string, subscriptions: string[] = []): OwnerIdentity => ({
  contact: "developer@example.test",
  subscriptions,
  service: serviceAddress(baseUrl),
});
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};
const SALTED = /^acct2-[0-9a-f]{16}-[0-9a-f]{16}(\+[0-9a-f]{16})*@svc-[0-9a-f]{12}$/;

describe("the recorded states of earlier releases", () => {
  it("hold no layout version: each is inferred from the owner record, 1 for 0.1.0's, 2 for the contact hash, 3 for the salted fingerprint", () => {
    expect(V010.records).toHaveLength(3);
    expect(REVIEW.records).toHaveLength(2);
    for (const { outputs } of [...V010.records, ...REVIEW.records]) expect(outputs).not.toHaveProperty("__stateVersion");
    const identity = developer(V010.apiBaseUrl);
    for (const { id, outputs } of V010.records) {
      expect(outputs.owner).toBeUndefined();
      expect(inferredStateVersion(outputs.owner)).toBe(1);
      expect(recordedState(id, { owner: outputs.owner }, identity, "x")).toEqual({ version: 1 });
      // The contact-hash record, as the builds between 0.1.0 and the salted fingerprint wrote it.
      const legacy = legacyFingerprint("developer@example.test", V010.apiBaseUrl);
      expect(inferredStateVersion(legacy)).toBe(2);
      expect(recordedState(id, { owner: legacy }, identity, "x")).toEqual({ version: 2, owner: legacy });
    }
    for (const { id, outputs } of REVIEW.records) {
      expect(outputs.owner).toMatch(SALTED);
      expect(inferredStateVersion(outputs.owner)).toBe(3);
      expect(recordedState(id, { owner: outputs.owner }, developer(REVIEW.apiBaseUrl), "x")).toEqual({ version: 3, owner: outputs.owner });
    }
  });
});

describe("the migrations, on the recorded records", () => {
  it("1 -> 3: records the configured account's salted fingerprint, proving nothing", () => {
    const identity = developer(V010.apiBaseUrl, ["sub_1_base"]);
    const owners = V010.records.map(({ id }) => {
      const old: SessionStateV1 = { version: 1 };
      const { state, proven } = migrateV1(id, old, identity, "refreshing");
      expect(proven).toBe(false);
      expect(state.version).toBe(CURRENT_STATE_VERSION);
      expect(state.owner).toMatch(SALTED);
      expect(state.owner.endsWith(`@${servicePart(serviceAddress(V010.apiBaseUrl))}`)).toBe(true);
      // The record it writes proves ownership from then on.
      expect(checkV3(id, state, identity, "refreshing")).toEqual({ state, proven: true });
      return state.owner;
    });
    expect(new Set(owners).size).toBe(owners.length); // salted per session
  });

  it("2 -> 3: compares the contact hash, refusing another account or service, and records the salted fingerprint, proving nothing", () => {
    const legacy = legacyFingerprint("developer@example.test", V010.apiBaseUrl);
    for (const { id } of V010.records) {
      const old: SessionStateV2 = { version: 2, owner: legacy };
      const { state, proven } = migrateV2(id, old, developer(V010.apiBaseUrl), "refreshing");
      expect(proven).toBe(false);
      expect(state).toEqual({ version: 3, owner: expect.stringMatching(SALTED) });
      // The contact hash is of the lower-cased, trimmed contact: a twin account shares it (and so is not proven).
      expect(migrateV2(id, old, { ...developer(V010.apiBaseUrl), contact: " Developer@Example.test" }, "x").proven).toBe(false);
      expect(code(() => migrateV2(id, old, { ...developer(V010.apiBaseUrl), contact: "ops@example.test" }, "x"))).toBe("account_mismatch");
      expect(code(() => migrateV2(id, old, developer("https://staging.example.com/v8"), "x"))).toBe("account_mismatch");
    }
  });

  it("3: checks the recorded salted fingerprint, proving ownership, and refuses another account", () => {
    for (const { id, outputs } of REVIEW.records) {
      const old: SessionStateV3 = { version: 3, owner: String(outputs.owner) };
      // By the subscriptions, or by the exact contact where the answer has none: the record stays as it is.
      expect(checkV3(id, old, developer(REVIEW.apiBaseUrl), "refreshing")).toEqual({ state: old, proven: true });
      expect(checkV3(id, old, developer(REVIEW.apiBaseUrl, ["sub_1_base", "sub_1_addon"]), "refreshing").proven).toBe(true);
      expect(code(() => checkV3(id, old, { ...developer(REVIEW.apiBaseUrl), contact: "Developer@example.test" }, "x"))).toBe("account_mismatch");
      expect(code(() => checkV3(id, old, developer("https://staging.example.com/v8"), "x"))).toBe("account_mismatch");
    }
  });

  it("upgradeState brings each layout to the current one", () => {
    const identity = developer(V010.apiBaseUrl);
    const legacy = legacyFingerprint("developer@example.test", V010.apiBaseUrl);
    expect(upgradeState("vm-a", { version: 1 }, identity, "x")).toMatchObject({ state: { version: 3 }, proven: false });
    expect(upgradeState("vm-a", { version: 2, owner: legacy }, identity, "x")).toMatchObject({ state: { version: 3 }, proven: false });
    const current = upgradeState("vm-a", { version: 1 }, identity, "x").state;
    expect(upgradeState("vm-a", current, identity, "x")).toEqual({ state: current, proven: true });
  });
});

describe("a record this version cannot read", () => {
  const identity = developer(REVIEW.apiBaseUrl);
  const owner = String(REVIEW.records[0]!.outputs.owner);
  const legacy = legacyFingerprint("developer@example.test", REVIEW.apiBaseUrl);

  it("is refused when of a newer layout, naming it", () => {
    const err = (() => {
      try {
        recordedState("vm-a", { owner, version: CURRENT_STATE_VERSION + 1 }, identity, "refreshing");
      } catch (e) {
        return e as AccountMismatchError;
      }
      throw new Error("expected a refusal");
    })();
    expect(err).toBeInstanceOf(AccountMismatchError);
    expect(err.message).toContain(`refreshing session vm-a: its state is of state layout version ${CURRENT_STATE_VERSION + 1}, which this version cannot read`);
    expect(err.message).toContain("written by a newer release?");
    expect(err.message).toContain("The session stays in the stack and was not touched");
    expect(err.recorded).toBe(owner);
  });

  it("is refused when its version and its owner record disagree, or its version is none", () => {
    for (const record of [
      { owner: undefined, version: 3 },
      { owner: undefined, version: 2 },
      { owner, version: 1 },
      { owner, version: 2 },
      { owner: legacy, version: 3 },
      { owner: legacy, version: 1 },
      { owner, version: "3" },
      { owner, version: 0 },
      { owner, version: 2.5 },
    ]) {
      expect(
        code(() => recordedState("vm-a", record, identity, "x")),
        JSON.stringify(record),
      ).toBe("account_mismatch");
    }
    // A version that fits is taken as it is.
    expect(recordedState("vm-a", { owner: legacy, version: 2 }, identity, "x")).toEqual({ version: 2, owner: legacy });
    expect(recordedState("vm-a", { owner: null, version: 1 }, identity, "x")).toEqual({ version: 1 });
  });

  it("is neither dropped by refresh nor ended by destroy, and the service is not asked about it", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const newer: Record<string, unknown> = { ...(outs as unknown as Record<string, unknown>), __stateVersion: CURRENT_STATE_VERSION + 1 };
    const polled = t.requests("status").length;
    expect((await thrown(() => t.provider().read(id, newer))).code).toBe("account_mismatch");
    expect((await thrown(() => t.provider().delete(id, newer))).code).toBe("account_mismatch");
    // Without an owner record too: destroy reads the account to say so, rather than take it for 0.1.0's.
    const { owner: _o, ...ownerless } = newer;
    expect((await thrown(() => t.provider().delete(id, ownerless))).code).toBe("account_mismatch");
    expect(t.requests("status")).toHaveLength(polled);
    expect(t.requests("remove")).toHaveLength(0);
    expect(t.emu.control.sessions().map((s) => s.status)).toEqual(["running"]);
  });
});

describe("the layout version recorded", () => {
  it("by create, and by an adoption, in the dynamic provider's outputs, which no diff compares", async () => {
    const p = t.provider();
    const inputs = { browser: "chrome", __seed: "p/s/a" };
    const { id, outs } = await p.create(inputs);
    expect(outs).toMatchObject({ __stateVersion: CURRENT_STATE_VERSION, owner: expect.stringMatching(SALTED) });
    expect(p.diff(id, outs as unknown as Record<string, unknown>, inputs).changes).toBe(false);
    const adopted = await p.create({ browser: "chrome", __seed: "p/s/b", __adoptVmId: id });
    expect(adopted.outs.__stateVersion).toBe(CURRENT_STATE_VERSION);
  });

  it("by the refresh of each recorded state, which migrates its owner record; refresh hands it back as an output, never an input", async () => {
    for (const seed of [...V010.seeds, ...REVIEW.seeds]) t.emu.control.seedSession({ ...seed, accountId: undefined });
    const here = `@${servicePart(serviceAddress(t.emu.apiBaseUrl))}`;
    const legacy = legacyFingerprint("developer@example.test", t.emu.apiBaseUrl);
    const records = [
      ...V010.records.map((r) => ({ ...r, from: 1 })),
      ...V010.records.map((r) => ({ ...r, outputs: { ...r.outputs, owner: legacy }, from: 2 })),
      ...REVIEW.records.map((r) => ({
        ...r,
        outputs: { ...r.outputs, owner: String(r.outputs.owner).replace(/@svc-[0-9a-f]{12}$/, here) },
        from: 3,
      })),
    ];
    for (const { id, outputs, from } of records) {
      const read = await t.provider().read(id, outputs);
      expect(read.id, `${id} from ${from}`).toBe(id);
      expect(read.props).toMatchObject({ __stateVersion: CURRENT_STATE_VERSION, owner: expect.stringMatching(SALTED) });
      if (from === 3) expect(read.props?.owner).toBe(outputs.owner);
      expect(read.inputs).not.toHaveProperty("__stateVersion");
      // From then on refresh keeps the record as it is.
      const again = await t.provider().read(id, read.props!);
      expect(again.props).toEqual(read.props);
    }
  });

  it("by a refresh of an API version 7 session, which keeps its record and gains the version it has", async () => {
    const p = t.provider({ apiVersion: "v7" });
    const { id, outs } = await p.create({ browser: "chrome", __seed: "p/s/a" });
    expect(outs.__stateVersion).toBe(CURRENT_STATE_VERSION);
    const { __stateVersion: _v, owner: _o, ...of010 } = outs as unknown as Record<string, unknown>;
    expect((await p.read(id, of010)).props).toEqual({ ...of010, __stateVersion: 1 });
    expect((await p.read(id, outs as unknown as Record<string, unknown>)).props).toEqual(outs);
  });

  it("by the plugin's create, import and refresh, the one bookkeeping output it keeps", async () => {
    const native = new BrowserSessionAdapter(t.provider().ctx);
    const created = await native.create({ urn: URN, news: { browser: "chrome" } });
    expect(created.outs.__stateVersion).toBe(CURRENT_STATE_VERSION);
    expect(Object.keys(created.outs).filter((k) => k.startsWith("__"))).toEqual(["__stateVersion"]);
    const vmId = (await t.client().createSession({ browser: "firefox" })).vmId;
    const imported = await native.read({ id: vmId, props: {}, inputs: {} });
    expect(imported.props.__stateVersion).toBe(CURRENT_STATE_VERSION);
    // A session moved over from the dynamic provider, recorded before versions were: the plugin's refresh records it.
    const { __stateVersion: _v, ...unversioned } = created.outs;
    const refreshed = await native.read({ id: created.id, props: { ...unversioned, __idempotencyKey: "prb-x" }, inputs: { browser: "chrome" } });
    expect(refreshed.props.__stateVersion).toBe(CURRENT_STATE_VERSION);
    expect(refreshed.props).not.toHaveProperty("__idempotencyKey");
    expect(native.diff({ id: created.id, olds: refreshed.props, news: { browser: "chrome" } }).changes).toBe(false);
    expect(native.update({ olds: refreshed.props, news: { browser: "chrome" } }).outs.__stateVersion).toBe(CURRENT_STATE_VERSION);
  });
});
