import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import { eventually, useEmulator } from "../helpers/emulator";

/**
 * The dynamic provider's diff, which the engine runs on every update and preview: the one call it gets
 * before an update (its protocol has no refresh_before_update). It asks the service, with one list of the
 * account's sessions per process, whether the recorded session still runs, and replaces it only when the
 * service proves it has ended -- never on an answer that proves nothing.
 */
const t = useEmulator();

const URN = "urn:pulumi:dev::review::pulumi-nodejs:dynamic/remote-browser:BrowserSession::app";
const INPUTS = { browser: "chrome", __seed: "review/dev/app", __urn: URN };

async function recorded(provider = t.provider(), inputs: Record<string, unknown> = INPUTS) {
  const { id, outs } = await provider.create({ ...inputs } as never);
  return { id, outs: outs as unknown as Record<string, unknown> };
}

const statusCalls = () => t.requests().filter((r) => r.operation === "status" || r.operation === "list");
const lists = () => t.requests("list");

describe("the dynamic diff asks the service whether the recorded session still runs", () => {
  it("keeps a running session with one list of the account's sessions for every diff of the process, and no read of any one", async () => {
    const provider = t.provider();
    const a = await recorded(provider);
    const b = await recorded(provider, { ...INPUTS, browser: "firefox", __seed: "review/dev/other" });
    t.emu.control.clearRequests();
    const fresh = t.provider();
    expect(await fresh.diffWithService(a.id, a.outs, { ...INPUTS })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: true });
    expect(await fresh.diffWithService(b.id, b.outs, { ...INPUTS, browser: "firefox", __seed: "review/dev/other" })).toMatchObject({ changes: false, replaces: [] });
    expect(lists()).toHaveLength(1);
    expect(statusCalls()).toHaveLength(1);
    expect(t.warnings).toEqual([]);
  });

  it("replaces a session the service has ended behind the stack's back, saying why on the resource's row", async () => {
    const { id, outs } = await recorded();
    t.emu.control.endSession(id);
    const fresh = t.provider();
    expect(await fresh.diffWithService(id, outs, { ...INPUTS })).toEqual({ changes: true, replaces: ["status"], deleteBeforeReplace: true });
    expect(t.warnedOn).toContainEqual({
      urn: URN,
      message: `BrowserSession "app": session ${id} has ended outside Pulumi (the service reports it "deleted"), so it is replaced by a new session`,
    });
    // Its own read decided, not the list.
    expect(t.requests("status").filter((r) => r.vmId === id).length).toBeGreaterThan(0);
  });

  it("takes a session the service no longer knows for ended only when its record proves the configured account made it", async () => {
    const provider = t.provider();
    const unknown = "vm-0000000000000000000000a1";
    const current = { browser: "chrome", vmId: unknown, status: "running", apiVersion: "v8", owner: await provider.ctx.owner(), __stateVersion: 3 };
    expect((await provider.diffWithService(unknown, current, { ...INPUTS })).replaces).toEqual(["status"]);
    expect(t.warnings.at(-1)).toContain(`session ${unknown} has ended outside Pulumi (the service no longer knows it)`);
    // Recorded by 0.1.0 (no owner fingerprint): "unknown" may be another account's running session.
    const { owner: _o, __stateVersion: _v, ...released } = current;
    expect(await t.provider().diffWithService(unknown, released, { ...INPUTS })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: true });
  });

  it("asks nothing when the inputs already replace the session", async () => {
    const { id, outs } = await recorded();
    t.emu.control.clearRequests();
    expect((await t.provider().diffWithService(id, outs, { ...INPUTS, browser: "edge" })).replaces).toEqual(["browser"]);
    expect(statusCalls()).toHaveLength(0);
  });

  it("never replaces on an answer that proves nothing: another account's key, the service down", async () => {
    const { id, outs } = await recorded();
    t.emu.control.endSession(id);
    const same = { changes: false, replaces: [], deleteBeforeReplace: true };
    // Another account's key: the service does not know the session, which proves nothing of its end.
    t.emu.control.addAccount({ apiKey: "rb_test_other_account", contact: "other@example.test" });
    expect(await t.provider({ apiKey: "rb_test_other_account" }).diffWithService(id, outs, { ...INPUTS })).toEqual(same);
    // The service down.
    const gone = await startEmulator({ prepMs: 1 });
    const downUrl = gone.apiBaseUrl;
    await gone.close();
    expect(await t.provider({ baseUrl: downUrl }).diffWithService(id, outs, { ...INPUTS })).toEqual(same);
    expect(t.warnings).toEqual([]);
  });
});

describe("…under a service that answers every status call about an id with the account's list", () => {
  const l = useEmulator({ latitude: { listForId: "always", unnamedForMs: 0, listLagMs: 0 } });

  it("never replaces a session whose end only a masked listed entry shows", async () => {
    // Recorded by hand: on this service no create can prove its session runs. Two others, so that every
    // answer about its id lists more than it.
    const client = l.client();
    const [vmId] = [(await client.createSession({ browser: "chrome" })).vmId, (await client.createSession({ browser: "chrome" })).vmId, (await client.createSession({ browser: "edge" })).vmId];
    await eventually(() => l.emu.control.sessions().every((s) => s.status === "running") || undefined);
    const provider = l.provider();
    const outs = { browser: "chrome", vmId, status: "running", apiVersion: "v8", owner: await provider.ctx.owner(), __stateVersion: 3 };
    l.emu.control.endSession(vmId);
    expect(await provider.diffWithService(vmId, outs, { ...INPUTS })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: true });
    expect(l.warnings).toEqual([]);
  });
});
