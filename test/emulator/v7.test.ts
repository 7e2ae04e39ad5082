import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness, waitForStatus } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 4 });
  h.emu.control.addAccount({ apiKey: "rb_v7_credits", v7Plan: "credits", credits: 2, runningLimit: 3 });
  h.emu.control.addAccount({ apiKey: "rb_v7_unlimited", v7Plan: "credits", credits: null });
  h.emu.control.addAccount({ apiKey: "rb_v7_no_location", locationAccess: false });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

const v7create = (body: Record<string, unknown>, key?: string) => h.post("/v7/vm/create", body, key === undefined ? {} : { key });

describe("version 7", () => {
  it("starts a session and answers vmId, share link and the session quota, without location fields", async () => {
    const a = await v7create({ browser: "chrome", url: "https://example.test", country: "de", shareLanguage: "fr" });
    expect(a.body.status).toBe("ok");
    expect(Object.keys(a.body).sort()).toEqual(["quota", "shareUrl", "shareUrlPath", "status", "vmId"]);
    expect(a.body.shareUrlPath).toMatch(/^\/fr\/s\?.+/);
    expect(a.body.shareUrl).toBe(h.emu.shareBase + a.body.shareUrlPath);
    expect(Object.keys(a.body.quota).sort()).toEqual(
      ["cycle_session_limit", "cycle_sessions_remaining", "cycle_sessions_used", "cycle_start", "running_session_limit", "running_sessions_remaining", "running_sessions_used"].sort(),
    );
    expect(a.body.quota.running_sessions_used).toBe(1);
  });

  it("creates the same sessions as version 8: visible in v8 status and removable through v8", async () => {
    const a = await v7create({ browser: "edge" });
    expect(h.emu.control.sessions()[0]?.apiVersion).toBe("v7");
    await waitForStatus(h, a.body.vmId, "running");
    expect((await h.post("/v8/vm/remove", { id: a.body.vmId })).body.status).toBe("ok");
    await waitForStatus(h, a.body.vmId, "deleted");
  });

  it("records an unavailable location on the session, visible through v8 status", async () => {
    h.emu.control.settings({ locationCapacity: { jp: 0 } });
    const a = await v7create({ browser: "chrome", country: "jp" });
    expect(a.body).not.toHaveProperty("location_applied");
    const entry = (await h.get(`/v8/vm/data?id=${a.body.vmId}`)).body.data[0];
    expect(entry).toMatchObject({ location_applied: false, location_reason: "unavailable" });
  });

  it("refuses egress as unknown in version 7, naming the field", async () => {
    const a = await v7create({ browser: "chrome", egress: "residential" });
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/^egress\b/);
  });

  it("refuses idempotencyKey as unknown in version 7, naming the field", async () => {
    const a = await v7create({ browser: "chrome", idempotencyKey: "k" });
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/^idempotencyKey\b/);
    expect(h.emu.control.sessions()).toHaveLength(0);
  });

  it("accepts only two-letter country codes", async () => {
    for (const country of ["us-dal", "auto", "usa", "zz"]) {
      const a = await v7create({ browser: "chrome", country });
      expect(a.body.status).toBe("denied");
      expect(a.body.message).toMatch(/^country\b/);
    }
  });

  it("validates the fields it shares with version 8", async () => {
    expect((await v7create({})).body.message).toMatch(/^browser\b/);
    expect((await v7create({ browser: "safari" })).body.message).toMatch(/^browser\b/);
    expect((await v7create({ browser: "chrome", url: "u".repeat(10_001) })).body.message).toMatch(/^url\b/);
    expect((await v7create({ browser: "chrome", callbackUrl: "mailto:x@example.test" })).body.message).toMatch(/^callbackUrl\b/);
    expect((await v7create({ browser: "chrome", shareLanguage: "xx" })).body.message).toMatch(/^shareLanguage\b/);
  });

  it("answers denied, never upgrade, when the running limit is reached", async () => {
    for (let i = 0; i < 4; i++) expect((await v7create({ browser: "chrome" })).body.status).toBe("ok");
    const a = await v7create({ browser: "chrome" });
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/^quota exceeded: running session limit/);
  });

  it("answers denied for a country when the plan has no location access", async () => {
    const a = await v7create({ browser: "chrome", country: "de" }, "rb_v7_no_location");
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/^country\b/);
  });

  it("answers the credit meter for a credits plan, with cycle_end one month after cycle_start", async () => {
    const a = await v7create({ browser: "chrome" }, "rb_v7_credits");
    expect(a.body.status).toBe("ok");
    const q = a.body.quota;
    expect(q).toMatchObject({
      credits_total: 2,
      credits_used: 1,
      credits_available: 1,
      concurrency_total: 3,
      concurrency_used: 1,
      concurrency_available: 2,
    });
    const start = new Date(`${q.cycle_start}T00:00:00Z`);
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, start.getUTCDate()));
    expect(q.cycle_end).toBe(end.toISOString().slice(0, 10));
  });

  it("reports null credits for an unlimited credits plan", async () => {
    const a = await v7create({ browser: "chrome" }, "rb_v7_unlimited");
    expect(a.body.quota).toMatchObject({ credits_total: null, credits_available: null, credits_used: 1 });
  });

  it("answers denied with quota exceeded once the credits are used", async () => {
    expect((await v7create({ browser: "chrome" }, "rb_v7_credits")).body.status).toBe("ok");
    expect((await v7create({ browser: "chrome" }, "rb_v7_credits")).body.status).toBe("ok");
    const a = await v7create({ browser: "chrome" }, "rb_v7_credits");
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/quota exceeded/);
  });

  it("answers the account with the v8 fields but no pools", async () => {
    await v7create({ browser: "chrome" });
    const v7 = (await h.get("/v7/user/api")).body;
    const v8 = (await h.get("/v8/user/api")).body;
    expect(v7).not.toHaveProperty("pools");
    const { pools: _pools, ...rest } = v8;
    expect(v7).toEqual(rest);
  });

  it("answers the quota with the v8 fields but no pools", async () => {
    const v7 = (await h.get("/v7/user/quota")).body;
    const v8 = (await h.get("/v8/user/quota")).body;
    expect(v7).not.toHaveProperty("pools");
    expect(v7).not.toHaveProperty("contact");
    const { pools: _pools, ...rest } = v8;
    expect(v7).toEqual(rest);
  });

  it("has no image, status or remove operations", async () => {
    expect((await h.get("/v7/image", { key: null })).http).toBe(404);
    expect((await h.get("/v7/vm/data")).http).toBe(404);
    expect((await h.post("/v7/vm/remove", { id: "x" })).http).toBe(404);
  });
});
