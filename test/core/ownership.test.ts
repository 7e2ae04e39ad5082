import { describe, expect, it } from "vitest";
import { BrowserSessionAdapter } from "../../plugin/resource";
import { checkConfig, configuredStackIdentity } from "../../plugin/providerConfig";
import { secret } from "../../engine-conventions/wire";
import { thrown, useEmulator } from "../helpers/emulator";

/**
 * One session, one owner: a session belongs to exactly one resource of one stack, on both fronts, and a
 * replacement the engine showed the provider never costs more than the one before it. Each `t.provider()`
 * is one provider process of one update.
 */
const t = useEmulator();

const PROJECT_STACK = "urn:pulumi:dev::review::";
const DESKTOP = `${PROJECT_STACK}acme:review:Desktop$pulumi-nodejs:dynamic/remote-browser:BrowserSession::session`;
const MOBILE = `${PROJECT_STACK}acme:review:Mobile$pulumi-nodejs:dynamic/remote-browser:BrowserSession::session`;
// The dynamic resource's seed of every earlier release: project/stack/name, the same under both parents.
const LEGACY_SEED = "review/dev/session";
const INPUTS = { browser: "chrome", url: "https://example.com/review" };
const NATIVE_URN = `${PROJECT_STACK}remote-browser:index:BrowserSession::session`;

const running = () => t.emu.control.sessions().filter((s) => s.status === "running" || s.status === "starting");
const status = (vmId: string) => t.emu.control.sessions().find((s) => s.vmId === vmId)!.status;

/** The plugin's adapter as the engine configures it for a stack whose provider recorded `identity`. */
function nativeOf(identity: string | undefined) {
  const adapter = new BrowserSessionAdapter(t.provider().ctx);
  adapter.configured({ keyInPlainConfig: false, stackIdentity: identity });
  return adapter;
}

/** A stack's provider as CheckConfig records it the first time (its stack identity drawn then). */
function stackIdentity(): string {
  return configuredStackIdentity(checkConfig({ apiKey: secret(t.emu.apiKey), baseUrl: t.emu.apiBaseUrl }, {}).inputs)!;
}

describe("two stacks of the same project and name on two backends, one account", () => {
  it("plugin: each stack's provider records its own identity, so each stack starts its own session, and destroying one leaves the other's running", async () => {
    const [a, b] = [stackIdentity(), stackIdentity()];
    const first = await nativeOf(a).create({ urn: NATIVE_URN, news: { ...INPUTS } });
    const second = await nativeOf(b).create({ urn: NATIVE_URN, news: { ...INPUTS } });
    expect(second.id).not.toBe(first.id);
    expect(t.emu.control.books().started).toBe(2);
    await nativeOf(b).delete({ id: second.id, props: second.outs, urn: NATIVE_URN });
    expect(status(first.id)).toBe("running");
  });

  it("plugin: the run after a killed update, configured with the identity its provider recorded, still adopts the session its create started", async () => {
    const identity = stackIdentity();
    const killed = new BrowserSessionAdapter(t.provider({ deps: { engineAlive: () => t.emu.control.books().createCalls === 0 } }).ctx);
    killed.configured({ keyInPlainConfig: false, stackIdentity: identity });
    expect((await thrown(() => killed.create({ urn: NATIVE_URN, news: { ...INPUTS } }))).code).toBe("engine_gone");
    const [started] = t.emu.control.sessions();
    const { id } = await nativeOf(identity).create({ urn: NATIVE_URN, news: { ...INPUTS } });
    expect(id).toBe(started!.vmId);
    expect(t.emu.control.books().started).toBe(1);
  });

  it("dynamic: the backend each stack is kept in tells them apart, and a killed update on the same backend still adopts", async () => {
    const fields = { ...INPUTS, __seed: LEGACY_SEED, __urn: DESKTOP };
    const first = await t.provider({ stackIdentity: "backend-a" }).create({ ...fields });
    const second = await t.provider({ stackIdentity: "backend-b" }).create({ ...fields });
    expect(second.id).not.toBe(first.id);
    await t.provider({ stackIdentity: "backend-b" }).delete(second.id, second.outs as unknown as Record<string, unknown>);
    expect(status(first.id)).toBe("running");
    // The same backend, the same resource: the same key (a killed update's run after it adopts).
    expect((await t.provider({ stackIdentity: "backend-a" }).create({ ...fields })).id).toBe(first.id);
  });
});

describe("two resources of one stack whose URNs differ only by their parents' types", () => {
  it("dynamic: `session` under acme:review:Desktop and under acme:review:Mobile get a session each; destroying one leaves the other running", async () => {
    const provider = t.provider();
    const desktop = await provider.create({ ...INPUTS, __seed: LEGACY_SEED, __urn: DESKTOP });
    const mobile = await provider.create({ ...INPUTS, __seed: LEGACY_SEED, __urn: MOBILE });
    expect(mobile.id).not.toBe(desktop.id);
    expect(t.emu.control.books().started).toBe(2);
    await provider.delete(mobile.id, mobile.outs as unknown as Record<string, unknown>);
    expect(status(desktop.id)).toBe("running");
    // The URN is recorded, so a read or delete, which the host does not tell which resource it serves, knows it.
    expect(desktop.outs).toMatchObject({ __urn: DESKTOP });
  });

  it("plugin: the same under the plugin, whose seed is the URN with the stack's identity", async () => {
    const identity = stackIdentity();
    const desktop = await nativeOf(identity).create({ urn: DESKTOP.replace("pulumi-nodejs:dynamic/remote-browser:BrowserSession", "remote-browser:index:BrowserSession"), news: { ...INPUTS } });
    const mobile = await nativeOf(identity).create({ urn: MOBILE.replace("pulumi-nodejs:dynamic/remote-browser:BrowserSession", "remote-browser:index:BrowserSession"), news: { ...INPUTS } });
    expect(mobile.id).not.toBe(desktop.id);
  });
});

describe("replacements the engine showed the provider", () => {
  it("cost the service the same create and status calls every time: the tenth as the second, and there is no last one", async () => {
    const identity = stackIdentity();
    let recorded = await nativeOf(identity).create({ urn: NATIVE_URN, news: { ...INPUTS } });
    // Per generation: the creates sent, and the sessions looked at (how often the new one is polled depends on
    // its preparation, not on the generation).
    const costs: Array<{ creates: number; looked: string[] }> = [];
    for (let generation = 2; generation <= 10; generation++) {
      // Each update's process: the engine reads the recorded session before the update (refresh-before-update),
      // then --replace creates its replacement and deletes the old one (create-before-delete).
      const process = nativeOf(identity);
      await process.read({ id: recorded.id, props: recorded.outs, inputs: { ...INPUTS }, urn: NATIVE_URN });
      t.emu.control.clearRequests();
      const next = await process.create({ urn: NATIVE_URN, news: { ...INPUTS } });
      costs.push({ creates: t.requests("create").length, looked: [...new Set(t.requests("status").map((r) => r.vmId!))] });
      expect(next.id).not.toBe(recorded.id);
      expect(costs.at(-1)!.looked).toEqual([next.id]);
      await process.delete({ id: recorded.id, props: recorded.outs, urn: NATIVE_URN });
      recorded = next;
    }
    expect(costs.map((c) => c.creates)).toEqual(costs.map(() => 1));
    expect(running().map((s) => s.vmId)).toEqual([recorded.id]);
  });

  it("deleteBeforeReplace: false on a full running limit: a url change ends the old session first, saying so, and starts its replacement", async () => {
    t.emu.control.settings({ runningLimit: 1 });
    const identity = stackIdentity();
    const old = await nativeOf(identity).create({ urn: NATIVE_URN, news: { ...INPUTS } });
    const process = nativeOf(identity);
    const diff = process.diff({ id: old.id, urn: NATIVE_URN, olds: old.outs, news: { ...INPUTS, url: "https://example.com/changed" }, oldInputs: { ...INPUTS } });
    expect(diff.replaces).toEqual(["url"]);
    // The program's deleteBeforeReplace: false wins over the provider's true: the create comes first.
    const next = await process.create({ urn: NATIVE_URN, news: { ...INPUTS, url: "https://example.com/changed" } });
    expect(status(next.id)).toBe("running");
    expect(status(old.id)).toMatch(/^(stopping|deleted)$/);
    expect(t.warnings.join("\n")).toContain(`leaves no room for the replacement beside session ${old.id}, so that session was ended first`);
    await process.delete({ id: old.id, props: old.outs, urn: NATIVE_URN });
    expect(running().map((s) => s.vmId)).toEqual([next.id]);
  });

  it("dynamic, delete-before-replace (the SDK's default): the replacement starts one step after the session the delete ended, with one create", async () => {
    const fields = { ...INPUTS, __seed: LEGACY_SEED, __urn: DESKTOP };
    let recorded = await t.provider().create({ ...fields });
    for (let generation = 2; generation <= 4; generation++) {
      const process = t.provider();
      await process.delete(recorded.id, recorded.outs as unknown as Record<string, unknown>);
      t.emu.control.clearRequests();
      const next = await process.create({ ...fields });
      expect(t.requests("create")).toHaveLength(1);
      expect(next.id).not.toBe(recorded.id);
      recorded = next;
    }
    expect(t.emu.control.books().started).toBe(4);
  });
});

describe("an imported session", () => {
  it("adopts what the program declares at the first update after the import, and from then on an input declared for the first time replaces it", async () => {
    const vmId = (await t.client().createSession({ browser: "firefox", url: "https://started.example.com/" })).vmId;
    const adapter = nativeOf(stackIdentity());
    const imported = await adapter.read({ id: vmId, props: {}, inputs: {}, urn: NATIVE_URN });
    const declared = { browser: "firefox", url: "https://started.example.com/" };
    // The first update after the import: no change, and its Check records the program's inputs, marked.
    expect(adapter.diff({ id: vmId, urn: NATIVE_URN, olds: imported.props, news: declared, oldInputs: imported.inputs })).toMatchObject({ changes: false });
    const { inputs: recorded } = await adapter.check({ news: declared });
    // Later, `language: de` declared for the first time: the service runs `en`, so the session is replaced.
    const later = adapter.diff({ id: vmId, urn: NATIVE_URN, olds: imported.props, news: { ...declared, language: "de" }, oldInputs: recorded });
    expect(later).toMatchObject({ changes: true, replaces: ["language"] });
    // A value the first update recorded is compared as on any session.
    expect(adapter.diff({ id: vmId, urn: NATIVE_URN, olds: imported.props, news: declared, oldInputs: recorded })).toMatchObject({ changes: false });
  });

  it("of an earlier release (recorded inputs without the mark) keeps that release's adoption: no change on upgrade", async () => {
    const vmId = (await t.client().createSession({ browser: "firefox" })).vmId;
    const adapter = nativeOf(undefined);
    const imported = await adapter.read({ id: vmId, props: {}, inputs: {}, urn: NATIVE_URN });
    const earlierRecorded = { browser: "firefox", url: "https://declared.example.com/" };
    expect(adapter.diff({ id: vmId, urn: NATIVE_URN, olds: imported.props, news: { ...earlierRecorded, language: "de" }, oldInputs: earlierRecorded })).toMatchObject({ changes: false });
  });
});
