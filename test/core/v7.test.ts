import { describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";

const t = useEmulator();

const INPUTS = { browser: "chrome", url: "https://example.com/", country: "de", shareLanguage: "pt", readyTimeoutSeconds: 30, __seed: "legacy/dev/app" };

describe("with apiVersion v7", () => {
  it("creates through the v7 start call and returns at once, with a warning", async () => {
    const { id, outs } = await t.provider({ apiVersion: "v7" }).create({ ...INPUTS });
    const [session] = t.emu.control.sessions();
    expect(id).toBe(session!.vmId);
    expect(session).toMatchObject({ apiVersion: "v7", country: "de", shareLanguage: "pt", idempotencyKey: null });
    expect(outs).toMatchObject({ ...INPUTS, vmId: id, status: "starting", apiVersion: "v7", shareUrlPath: `/pt/s?${session!.linkId}` });
    expect(outs).not.toHaveProperty("locationApplied");
    expect(Object.values(outs).every((v) => v !== undefined)).toBe(true);
    // Not waited for: version 7 has no status operation.
    // The account is read first, for the session's owner fingerprint.
    expect(t.requests().map((r) => r.operation)).toEqual(["v7account", "v7create"]);
    expect(t.warnings).toHaveLength(1);
    expect(t.warnings[0]).toContain(id);
    expect(t.warnings[0]).toContain("API version 7");
  });

  it("sends every v7 input to the service's v7 start call", async () => {
    const inputs = {
      browser: "firefox",
      url: "https://example.com/start?page=1",
      language: "de",
      layout: "fr",
      country: "nl",
      shareLanguage: "ja",
      callbackUrl: "https://example.com/after",
      __seed: "legacy/dev/all",
    };
    await t.provider({ apiVersion: "v7" }).create(inputs);
    expect(t.requests("v7create")).toHaveLength(1);
    const { __seed: _seed, ...sent } = inputs;
    // The emulator's own record of the request it was sent.
    expect(t.emu.control.sessions()).toEqual([expect.objectContaining({ ...sent, apiVersion: "v7" })]);
  });

  it("keeps the recorded state on refresh, with a warning and no API call", async () => {
    const provider = t.provider({ apiVersion: "v7" });
    const { id, outs } = await provider.create({ ...INPUTS });
    t.emu.control.clearRequests();
    t.warnings.length = 0;
    const props = outs as unknown as Record<string, unknown>;
    const result = await provider.read(id, props);
    expect(result).toEqual({ id, props, inputs: INPUTS });
    expect(t.requests()).toHaveLength(0);
    expect(t.warnings).toHaveLength(1);
    expect(t.warnings[0]).toContain("refresh keeps the recorded state");
  });

  it("cannot end the session: delete makes no API call and warns", async () => {
    const provider = t.provider({ apiVersion: "v7" });
    const { id, outs } = await provider.create({ ...INPUTS });
    t.emu.control.clearRequests();
    t.warnings.length = 0;
    await provider.delete(id, outs as unknown as Record<string, unknown>);
    expect(t.requests()).toHaveLength(0);
    expect(t.warnings).toEqual([expect.stringContaining("cannot end sessions")]);
    expect(t.warnings[0]).toContain(id);
  });

  it("follows the version recorded in the state, not the configured one, for refresh and delete", async () => {
    const { id, outs } = await t.provider({ apiVersion: "v7" }).create({ ...INPUTS });
    t.emu.control.clearRequests();
    const v8 = t.provider();
    const props = outs as unknown as Record<string, unknown>;
    expect((await v8.read(id, props)).props).toEqual(props);
    await v8.delete(id, props);
    expect(t.requests()).toHaveLength(0);
  });

  it("reports a v7 refusal with the service's message", async () => {
    t.emu.control.settings({ runningLimit: 0 });
    const provider = t.provider({ apiVersion: "v7" });
    await expect(provider.create({ ...INPUTS })).rejects.toThrow(/quota exceeded: running session limit reached/);
    expect(t.requests("v7create")).toHaveLength(1);
    expect(t.emu.control.books().started).toBe(0);
  });
});
