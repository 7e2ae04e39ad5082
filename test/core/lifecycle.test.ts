import { describe, expect, it } from "vitest";
import type { SessionProvider } from "../../dynamic/session";
import { UNKNOWN, eventually, thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

const INPUTS = {
  browser: "firefox",
  url: "https://example.com/review",
  language: "en",
  layout: "us",
  country: "fr",
  shareLanguage: "es",
  callbackUrl: "https://example.com/bye",
  readyTimeoutSeconds: 60,
  requireLocation: true,
  __seed: "review/pr-9/app",
};

async function created(provider: SessionProvider = t.provider()) {
  const { id, outs } = await provider.create({ ...INPUTS });
  return { id, outs: outs as unknown as Record<string, unknown> };
}

describe("diff", () => {
  const provider = () => t.provider();

  it("reports no change when the inputs equal the recorded state", async () => {
    const { id, outs } = await created();
    t.emu.control.clearRequests();
    // Delete-before-replace even with no change: the engine takes it for a replacement it decides itself.
    expect(provider().diff(id, outs, { ...INPUTS })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: true });
    expect(t.requests()).toHaveLength(0);
  });

  it("ignores the URN input: state written before it existed, or under another parent, shows no change", async () => {
    const { id, outs } = await created();
    const urn = "urn:pulumi:pr-9::review::pulumi-nodejs:dynamic/remote-browser:BrowserSession::app";
    const none = { changes: false, replaces: [], deleteBeforeReplace: true };
    expect(outs).not.toHaveProperty("__urn");
    expect(provider().diff(id, outs, { ...INPUTS, __urn: urn })).toEqual(none);
    expect(provider().diff(id, { ...outs, __urn: urn }, { ...INPUTS, __urn: urn.replace("::app", "::other") })).toEqual(none);
  });

  const replacing: [string, unknown][] = [
    ["browser", "chrome"],
    ["url", "https://example.com/other"],
    ["language", "de"],
    ["layout", "de"],
    ["country", "fr-mrs"],
    ["egress", "residential"],
    ["callbackUrl", "https://example.com/elsewhere"],
    ["idempotencyKey", "new-key"],
  ];
  for (const [property, value] of replacing) {
    it(`replaces the session, deleting it first, when ${property} changes`, async () => {
      const { id, outs } = await created();
      expect(provider().diff(id, outs, { ...INPUTS, [property]: value })).toEqual({
        changes: true,
        replaces: [property],
        deleteBeforeReplace: true,
      });
    });
  }

  it("replaces when an API input is removed", async () => {
    const { id, outs } = await created();
    const { url: _url, ...withoutUrl } = INPUTS;
    expect(provider().diff(id, outs, withoutUrl).replaces).toEqual(["url"]);
  });

  for (const [property, value] of [
    ["readyTimeoutSeconds", 120],
    ["requireLocation", false],
    ["shareLanguage", "en"],
  ] as const) {
    it(`changes ${property} in place, without a replacement`, async () => {
      const { id, outs } = await created();
      expect(provider().diff(id, outs, { ...INPUTS, [property]: value })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: true });
    });
  }

  it("applies the program's replaceOnChanges, which the engine cannot apply to a dynamic resource, to in-place inputs", async () => {
    const { id, outs } = await created();
    const news = { ...INPUTS, shareLanguage: "ja", readyTimeoutSeconds: 120 };
    expect(provider().diff(id, outs, { ...news, __replaceOnChanges: ["shareLanguage"] }).replaces).toEqual(["shareLanguage"]);
    expect(
      provider()
        .diff(id, outs, { ...news, __replaceOnChanges: ["*"] })
        .replaces.sort(),
    ).toEqual(["readyTimeoutSeconds", "shareLanguage"]);
    expect(provider().diff(id, outs, { ...INPUTS, __replaceOnChanges: ["shareLanguage"] }).changes).toBe(false);
  });

  it("replaces when an API input is not known yet (preview)", async () => {
    const { id, outs } = await created();
    expect(provider().diff(id, outs, { ...INPUTS, url: UNKNOWN })).toEqual({ changes: true, replaces: ["url"], deleteBeforeReplace: true });
  });
});

describe("update", () => {
  it("changes only the provider's own inputs and calls nothing", async () => {
    const { id, outs } = await created();
    t.emu.control.clearRequests();
    const { requireLocation: _r, ...news } = { ...INPUTS, readyTimeoutSeconds: 5 };
    const { outs: updated } = t.provider().update(id, outs, news);
    expect(updated).toEqual({ ...Object.fromEntries(Object.entries(outs).filter(([k]) => k !== "requireLocation")), readyTimeoutSeconds: 5 });
    expect(updated).not.toHaveProperty("requireLocation");
    expect(t.requests()).toHaveLength(0);
  });

  it("does not touch the recorded API inputs even if it is handed other ones", async () => {
    const { id, outs } = await created();
    const { outs: updated } = t.provider().update(id, outs, { ...INPUTS, url: "https://example.com/changed", readyTimeoutSeconds: 7 });
    expect(updated.url).toBe(INPUTS.url);
    expect(updated.readyTimeoutSeconds).toBe(7);
  });
});

describe("read", () => {
  it("refreshes the status and rebuilds inputs that equal the original ones, so a refresh makes no diff", async () => {
    const { id, outs } = await created();
    const stale = { ...outs, status: "starting" };
    const result = await t.provider().read(id, stale);
    expect(result.id).toBe(id);
    expect(result.props).toMatchObject({ ...outs, status: "running" });
    expect(result.inputs).toEqual(INPUTS);
    expect(t.provider().diff(id, result.props!, result.inputs!).changes).toBe(false);
    expect(t.requests("status").at(-1)?.vmId).toBe(id);
  });

  it("reports a session ended out of band as gone", async () => {
    const { id, outs } = await created();
    t.emu.control.endSession(id);
    expect(await t.provider().read(id, outs)).toEqual({});
  });

  it("reports a session whose preparation failed as gone", async () => {
    const { id, outs } = await created();
    t.emu.control.setState(id, "error");
    expect(await t.provider().read(id, outs)).toEqual({});
  });

  it("reports a session of its own account that the service does not know as gone", async () => {
    const { id, outs } = await created();
    t.emu.control.reset(); // the service forgot every session
    expect(await t.provider().read(id, outs)).toEqual({});
  });

  it("surfaces a failing status read instead of dropping the session", async () => {
    const { id, outs } = await created();
    t.emu.control.fault({ operation: "status", kind: "error", count: 50 });
    const err = await thrown(() => t.provider().read(id, outs));
    expect(err.message).toContain("injected fault");
    expect(err.message).toContain(id);
  });
});

describe("import (create with __adoptVmId, which the SDK sets from the import option)", () => {
  it("takes over a running session started elsewhere, without starting one, and has no share link", async () => {
    const { vmId } = await t.client().createSession({ browser: "edge", country: "de" });
    await eventually(() => t.emu.control.sessions()[0]!.status === "running");
    const { id, outs } = await t.provider().create({ browser: "edge", country: "de", __seed: "review/pr-9/app", __adoptVmId: vmId });
    expect(id).toBe(vmId);
    expect(outs).toMatchObject({ vmId, browser: "edge", browserName: "Microsoft Edge", status: "running", apiVersion: "v8", locationApplied: true });
    expect(outs).not.toHaveProperty("shareUrl");
    expect(outs).not.toHaveProperty("shareUrlPath");
    expect(Object.values(outs).every((v) => v !== undefined)).toBe(true);
    expect(t.requests("create")).toHaveLength(1);
    expect(t.emu.control.books().started).toBe(1);
  });

  it("records the declared inputs the service cannot report, and warns naming them", async () => {
    const { vmId } = await t.client().createSession({ browser: "edge", url: "https://started.example.com/", country: "de" });
    await eventually(() => t.emu.control.sessions()[0]!.status === "running");
    const urn = "urn:pulumi:pr-9::review::pulumi-nodejs:dynamic/remote-browser:BrowserSession::app";
    const { outs } = await t.provider().create({ browser: "edge", url: "https://started.example.com/", country: "de", readyTimeoutSeconds: 30, __urn: urn, __adoptVmId: vmId });
    expect(outs).toMatchObject({ url: "https://started.example.com/", country: "de", readyTimeoutSeconds: 30 });
    expect(t.warnedOn).toEqual([{ urn, message: expect.stringContaining(`BrowserSession ${vmId}, taken in by its id`) }]);
    expect(t.warnedOn[0]!.message).toContain("(declared: url, country)");
  });

  it("waits for an adopted session that is still starting", async () => {
    t.emu.control.preparation({ paused: true });
    const { vmId } = await t.client().createSession({ browser: "chrome" });
    const adopting = t.provider().create({ browser: "chrome", __adoptVmId: vmId });
    await eventually(() => t.requests("status").length > 0);
    t.emu.control.preparation({ paused: false });
    const { outs } = await adopting;
    expect(outs.status).toBe("running");
    expect(t.requests("status").length).toBeGreaterThan(1);
    expect(t.requests("status")[0]!.vmId).toBe(vmId);
  });

  it("refuses a session that runs another browser than the one declared", async () => {
    const { vmId } = await t.client().createSession({ browser: "brave" });
    const err = await thrown(() => t.provider().create({ browser: "chrome", __adoptVmId: vmId }));
    expect(err.code).toBe("import_failed");
    expect(err.message).toContain(`importing ${vmId}`);
    expect(err.message).toContain('browser "brave"');
    expect(t.emu.control.books().started).toBe(1);
  });

  it("refuses a session that has ended or that the service does not know", async () => {
    const { vmId } = await t.client().createSession({ browser: "chrome" });
    t.emu.control.endSession(vmId);
    expect((await thrown(() => t.provider().create({ browser: "chrome", __adoptVmId: vmId }))).message).toContain("has ended");
    const unknown = await thrown(() => t.provider().create({ browser: "chrome", __adoptVmId: "vm-000000000000" }));
    expect(unknown.message).toContain("knows no such session");
    expect(t.requests("create")).toHaveLength(1);
  });

  it("refreshes an adopted session without a diff", async () => {
    const { vmId } = await t.client().createSession({ browser: "firefox" });
    const inputs = { browser: "firefox", readyTimeoutSeconds: 30, __adoptVmId: vmId };
    const { outs } = await t.provider().create(inputs);
    const refreshed = await t.provider().read(vmId, outs as unknown as Record<string, unknown>);
    expect(refreshed.inputs).toEqual(inputs);
    expect(t.provider().diff(vmId, refreshed.props!, inputs).changes).toBe(false);
  });
});

describe("delete", () => {
  it("ends the session", async () => {
    const { id, outs } = await created();
    await t.provider().delete(id, outs);
    expect(t.emu.control.sessions()[0]!.status).toMatch(/^(stopping|deleted)$/);
    expect(t.emu.control.books().neverEnded).toBe(0);
    expect(t.requests("remove").map((r) => [r.vmId, r.status])).toEqual([[id, "ok"]]);
  });

  it("succeeds for a session that has already ended", async () => {
    const { id, outs } = await created();
    t.emu.control.endSession(id);
    await expect(t.provider().delete(id, outs)).resolves.toBeUndefined();
    expect(t.emu.control.books().neverEnded).toBe(0);
  });

  it("treats a session of its own account that the service does not know as gone", async () => {
    const { id, outs } = await created();
    t.emu.control.reset(); // the service forgot every session
    await expect(t.provider().delete(id, outs)).resolves.toBeUndefined();
    // The refusal was checked against the status: the service really knows no such session.
    expect(t.requests().map((r) => r.operation)).toEqual(["account", "remove", "status"]);
  });

  it("fails with a refused key (denied) and says the session stays in the stack", async () => {
    const { id, outs } = await created();
    const err = await thrown(() => t.provider({ apiKey: "rb_test_revoked" }).delete(id, outs));
    expect(err.code).toBe("kept_in_stack");
    expect(err).not.toHaveProperty("id");
    expect(err.message).toContain(`ending session ${id} failed, so it stays in the stack`);
    expect(err.message).toContain("(denied)");
    expect(err.message).toContain("invalid API key");
    expect(t.emu.control.books().running).toBe(1);
  });

  it("fails when the service keeps failing, and says the session stays in the stack", async () => {
    const { id, outs } = await created();
    t.emu.control.fault({ operation: "remove", kind: "error", count: 50 });
    const err = await thrown(() => t.provider().delete(id, outs));
    expect(err.code).toBe("kept_in_stack");
    expect(err.message).toContain("injected fault");
    expect(t.requests("remove")).toHaveLength(5);
    expect(t.emu.control.books().running).toBe(1);
  });

  it("rides out a short service fault", async () => {
    const { id, outs } = await created();
    t.emu.control.fault({ operation: "remove", kind: "error", count: 2 });
    await t.provider().delete(id, outs);
    expect(t.requests("remove").map((r) => r.status)).toEqual(["error", "error", "ok"]);
    await eventually(() => t.emu.control.books().neverEnded === 0);
  });
});

describe("ids the dynamic resource hands over", () => {
  it("bounds the id of an import (the import option), a refresh and a destroy, never repeats a long one, and calls the service for none", async () => {
    const huge = `vm-${"x".repeat(1024 * 1024)}`;
    const provider = t.provider();
    for (const attempt of [
      () => provider.create({ ...INPUTS, __adoptVmId: huge }),
      () => provider.read(huge, { vmId: huge, owner: "o", apiVersion: "v8" }),
      () => provider.delete(huge, { vmId: huge, apiVersion: "v8" }),
    ]) {
      const err = await thrown(attempt);
      expect(err.code).toBe("validation");
      expect(err.message).toMatch(/the session id is 1048579 characters long, not a session id \(at most 256\)/);
      expect(err.message.length).toBeLessThan(300);
    }
    expect(t.emu.control.books().removeCalls).toBe(0);
    expect(t.emu.control.sessions()).toEqual([]);
  });
  it("refuses a masked id (as the service lists sessions) for an import, a refresh and a destroy, saying what it is, and calls the service for none", async () => {
    const { id } = await created();
    t.emu.control.clearRequests();
    const masked = `${id.slice(0, 4)}****${id.slice(-4)}`;
    const provider = t.provider();
    for (const attempt of [
      () => provider.create({ ...INPUTS, __adoptVmId: masked }),
      () => provider.read(masked, { vmId: masked, owner: "o", apiVersion: "v8" }),
      () => provider.delete(masked, { vmId: masked, apiVersion: "v8" }),
    ]) {
      const err = await thrown(attempt);
      expect(err.code).toBe("validation");
      expect(err.message).toMatch(/is a masked id: the service's list of the account's sessions .* hides part of each id .*cannot address a session/);
    }
    expect(t.requests()).toHaveLength(0);
  });
});
