import { describe, expect, it } from "vitest";
import { isCreditMeter } from "../../client";
import { eventually, useEmulator } from "../helpers/emulator";

const t = useEmulator();

describe("RemoteBrowserClient (v8) against the emulator", () => {
  it("lists images, exit locations and the residential descriptor without sending the key", async () => {
    const answer = await t.client({ apiKey: undefined }).images();
    expect(answer.status).toBe("ok");
    expect(answer.images.find((i) => i.id === "chrome")).toEqual({ id: "chrome", name: "Google Chrome", enabled: true });
    expect(answer.images.find((i) => i.id === "safari")?.enabled).toBe(false);
    const us = answer.vpnLocations.find((l) => l.code === "us");
    expect(us?.default).toBe("us-nyc");
    expect(us?.cities.map((c) => c.code)).toContain("us-dal");
    expect(answer.residential.configured).toBe(true);
    expect(answer.residential.countries).not.toContain("jp");
    expect(t.requests("image")).toHaveLength(1);
  });

  it("starts a session and parses its identifier, share link and quota", async () => {
    const answer = await t.client().createSession({ browser: "firefox", shareLanguage: "de", idempotencyKey: "endpoint-create" });
    const [session] = t.emu.control.sessions();
    expect(answer.vmId).toBe(session!.vmId);
    expect(session!.browser).toBe("firefox");
    expect(session!.idempotencyKey).toBe("endpoint-create");
    expect(answer.location_applied).toBe(true);
    expect(answer.location_reason).toBeUndefined();
    expect(answer.shareUrlPath).toBe(`/de/s?${session!.linkId}`);
    expect(answer.shareUrl).toBe(`${t.emu.shareBase}${answer.shareUrlPath}`);
    expect(answer.quota).toMatchObject({ running_session_limit: 5, running_sessions_used: 1, running_sessions_remaining: 4 });
    expect(answer.quota.cycle_start).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("reports location_applied false with its reason when no exit is free in the country", async () => {
    t.emu.control.settings({ locationCapacity: { de: 0 } });
    const answer = await t.client().createSession({ browser: "chrome", country: "de" });
    expect(answer.location_applied).toBe(false);
    expect(answer.location_reason).toBe("unavailable");
  });

  it("reads one session's status entry, from starting to running", async () => {
    const client = t.client();
    t.emu.control.preparation({ paused: true });
    const { vmId } = await client.createSession({ browser: "edge", country: "us-dal" });
    const first = await client.session(vmId);
    expect(first).toMatchObject({ status: "starting", name: "Microsoft Edge", location_applied: true });
    expect(first!.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // The status answer masks the id: prefix and last four characters only.
    expect(first!.id).not.toBe(vmId);
    expect(first!.id.slice(-4)).toBe(vmId.slice(-4));
    t.emu.control.preparation({ paused: false });
    await eventually(() => t.emu.control.sessions()[0]!.status === "running");
    expect((await client.session(vmId))?.status).toBe("running");
  });

  it("answers undefined for a session the service does not know", async () => {
    expect(await t.client().session("vm-000000000000")).toBeUndefined();
  });

  it("lists the account's sessions newest first", async () => {
    const client = t.client();
    const a = await client.createSession({ browser: "chrome" });
    const b = await client.createSession({ browser: "brave" });
    const list = await client.sessions();
    expect(list.map((s) => s.id.slice(-4))).toEqual([b.vmId.slice(-4), a.vmId.slice(-4)]);
    expect(list.map((s) => s.name)).toEqual(["Brave", "Google Chrome"]);
  });

  it("ends a session, and ending it again still succeeds", async () => {
    const client = t.client();
    const { vmId } = await client.createSession({ browser: "chrome" });
    await expect(client.removeSession(vmId)).resolves.toBeUndefined();
    expect(t.emu.control.sessions()[0]!.status).toMatch(/^(stopping|deleted)$/);
    await expect(client.removeSession(vmId)).resolves.toBeUndefined();
    expect(t.emu.control.books().neverEnded).toBe(0);
    expect(t.requests("remove").map((r) => r.status)).toEqual(["ok", "ok"]);
  });

  it("reads the account with its usage meter and pools", async () => {
    const client = t.client();
    await client.createSession({ browser: "chrome" });
    const account = await client.account();
    expect(account).toMatchObject({
      status: "ok",
      contact: "developer@example.test",
      feature_programmatic_access: true,
      has_plan: true,
      running_session_limit: 5,
      running_sessions_used: 1,
      cycle_session_limit: null,
      residential_cycle_mb_limit: 1024,
    });
    expect(account.pools).toHaveLength(2);
    expect(account.pools.reduce((n, p) => n + p.running_session_limit, 0)).toBe(account.running_session_limit);
    expect(account.pools[0]).toHaveProperty("plan_name");
  });

  it("reads the quota: the account answer without contact and programmatic access", async () => {
    const quota = await t.client().quota();
    expect(quota).toMatchObject({ status: "ok", has_plan: true, running_session_limit: 5, residential_bytes_used_cycle: 0 });
    expect(quota).not.toHaveProperty("contact");
    expect(quota).not.toHaveProperty("feature_programmatic_access");
    expect(quota.pools.map((p) => p.subscription_id)).toHaveLength(2);
  });
});

describe("RemoteBrowserClient.v7 against the emulator", () => {
  it("starts a session on a sessions plan and parses the session meter", async () => {
    const answer = await t.client().v7.createSession({ browser: "chrome", country: "de", shareLanguage: "it" });
    expect(isCreditMeter(answer.quota)).toBe(false);
    expect(answer.quota).toMatchObject({ running_session_limit: 5, running_sessions_used: 1 });
    expect(answer.shareUrlPath).toMatch(/^\/it\/s\?/);
    expect(answer).not.toHaveProperty("location_applied");
    const [session] = t.emu.control.sessions();
    expect(session).toMatchObject({ vmId: answer.vmId, apiVersion: "v7", country: "de" });
    expect(t.requests("v7create")).toHaveLength(1);
  });

  it("starts a session on a credits plan and parses the credit meter", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_credits", v7Plan: "credits", credits: 10 });
    const answer = await t.client({ apiKey: "rb_test_credits" }).v7.createSession({ browser: "chrome" });
    if (!isCreditMeter(answer.quota)) throw new Error(`expected a credit meter, got ${JSON.stringify(answer.quota)}`);
    expect(answer.quota).toMatchObject({ credits_total: 10, credits_used: 1, credits_available: 9, concurrency_used: 1 });
    const start = new Date(`${answer.quota.cycle_start}T00:00:00Z`);
    const end = new Date(`${answer.quota.cycle_end}T00:00:00Z`);
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
  });

  it("parses an unlimited credits plan (null total)", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_unlimited", v7Plan: "credits", credits: null });
    const answer = await t.client({ apiKey: "rb_test_unlimited" }).v7.createSession({ browser: "chrome" });
    expect(answer.quota).toMatchObject({ credits_total: null, credits_available: null, credits_used: 1 });
  });

  it("reads the v7 account and quota, which have no pools", async () => {
    const client = t.client();
    const account = await client.v7.account();
    expect(account).toMatchObject({ status: "ok", contact: "developer@example.test", feature_programmatic_access: true, has_plan: true });
    expect(account).toMatchObject({ running_session_limit: 5 });
    const quota = await client.v7.quota();
    expect(quota).toMatchObject({ status: "ok", has_plan: true, running_session_limit: 5 });
    expect(t.requests("v7account")).toHaveLength(1);
    expect(t.requests("v7quota")).toHaveLength(1);
    expect(t.requests("account")).toHaveLength(0);
  });
});
