import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";
import { eventually } from "../helpers/eventually";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 3 });
  h.emu.control.addAccount({ apiKey: "rb_no_location", locationAccess: false });
  h.emu.control.addAccount({ apiKey: "rb_no_residential", residentialMb: null });
  h.emu.control.addAccount({ apiKey: "rb_small_residential", residentialMb: 1 });
  h.emu.control.addAccount({ apiKey: "rb_no_plan", hasPlan: false });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

const QUOTA_KEYS = ["running_session_limit", "running_sessions_used", "running_sessions_remaining", "cycle_session_limit", "cycle_sessions_used", "cycle_sessions_remaining", "cycle_start"];

describe("plan limits", () => {
  it("answers upgrade when the running limit is reached, counting starting and running sessions", async () => {
    for (let i = 0; i < 3; i++) expect((await h.create()).body.status).toBe("ok");
    const a = await h.create();
    expect(a.body.status).toBe("upgrade");
    expect(a.body.message).toMatch(/running session limit/);
    expect(h.emu.control.sessions()).toHaveLength(3);
  });

  it("frees a running slot as soon as a session is ended", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.create()).body.vmId);
    expect((await h.post("/v8/vm/remove", { id: ids[0] })).body.status).toBe("ok");
    expect((await h.create()).body.status).toBe("ok");
  });

  it("answers upgrade when the cycle limit is reached, even with free running slots", async () => {
    h.emu.control.settings({ cycleLimit: 2 });
    const first = await h.create();
    await h.post("/v8/vm/remove", { id: first.body.vmId });
    expect((await h.create()).body.status).toBe("ok");
    const a = await h.create();
    expect(a.body.status).toBe("upgrade");
    expect(a.body.message).toMatch(/cycle session limit/);
  });

  it("stops counting a session against the cycle once it was created in an earlier cycle", async () => {
    h.emu.control.settings({ cycleLimit: 1 });
    const first = await h.create();
    await h.post("/v8/vm/remove", { id: first.body.vmId });
    expect((await h.create()).body.status).toBe("upgrade");
    h.emu.control.setCreated(first.body.vmId, "2000-01-15T00:00:00.000Z");
    expect((await h.create()).body.status).toBe("ok");
  });

  it("answers upgrade for a country when the plan has no location access", async () => {
    const a = await h.create({ country: "de" }, { key: "rb_no_location" });
    expect(a.body.status).toBe("upgrade");
    expect(a.body.message).toMatch(/^country/);
    expect((await h.create({}, { key: "rb_no_location" })).body.status).toBe("ok");
  });

  it("answers upgrade for residential egress when the plan has no residential allowance", async () => {
    const a = await h.create({ egress: "residential" }, { key: "rb_no_residential" });
    expect(a.body.status).toBe("upgrade");
    expect(a.body.message).toMatch(/^egress/);
  });

  it("answers upgrade for residential egress once the allowance of the cycle is used up", async () => {
    h.emu.control.settings({ residentialBytesPerSecond: 50 * 1024 * 1024 });
    const key = "rb_small_residential";
    const first = await h.create({ egress: "residential", country: "us-dal" }, { key });
    expect(first.body.status).toBe("ok");
    const used = await eventually(async () => {
      const q = await h.get("/v8/user/quota", { key });
      return q.body.residential_bytes_used_cycle >= 1024 * 1024 ? q.body : undefined;
    });
    expect(used.residential_bytes_used_cycle).toBe(1024 * 1024);
    const a = await h.create({ egress: "residential" }, { key });
    expect(a.body.status).toBe("upgrade");
    expect(a.body.message).toMatch(/used up/);
    // The datacenter connection is unaffected.
    expect((await h.create({}, { key })).body.status).toBe("ok");
  });

  it("counts residential bytes only while a residential session runs", async () => {
    h.emu.control.settings({ residentialBytesPerSecond: 1024 * 1024 });
    const plain = await h.create();
    const res = await h.create({ egress: "residential" });
    await eventually(async () => (await h.get("/v8/user/api")).body.residential_bytes_used_cycle > 0);
    const view = h.emu.control.sessions();
    expect(view.find((s) => s.vmId === plain.body.vmId)?.residentialBytes).toBe(0);
    await h.post("/v8/vm/remove", { id: res.body.vmId });
    const after = (await h.get("/v8/user/api")).body.residential_bytes_used_cycle;
    await new Promise((r) => setTimeout(r, 150));
    expect((await h.get("/v8/user/api")).body.residential_bytes_used_cycle).toBe(after);
  });

  it("answers upgrade when the account has no plan", async () => {
    const a = await h.create({}, { key: "rb_no_plan" });
    expect(a.body.status).toBe("upgrade");
    const acc = await h.get("/v8/user/api", { key: "rb_no_plan" });
    expect(acc.body.has_plan).toBe(false);
    expect(acc.body.pools).toEqual([]);
  });

  it("does not start a session when refused for the plan", async () => {
    await h.create({ country: "de" }, { key: "rb_no_location" });
    expect(h.emu.control.sessions()).toHaveLength(0);
    expect(h.emu.control.books().started).toBe(0);
  });
});

describe("usage meters", () => {
  it("returns the seven session meter fields in the start answer with post-create values", async () => {
    const a = await h.create();
    expect(Object.keys(a.body.quota).sort()).toEqual([...QUOTA_KEYS].sort());
    expect(a.body.quota).toMatchObject({
      running_session_limit: 3,
      running_sessions_used: 1,
      running_sessions_remaining: 2,
      cycle_session_limit: null,
      cycle_sessions_used: 1,
      cycle_sessions_remaining: null,
    });
    expect(a.body.quota.cycle_start).toMatch(/^\d{4}-\d{2}-01$/);
  });

  it("reports cycle_start as the first day of the current month (UTC)", async () => {
    const a = await h.get("/v8/user/quota");
    const now = new Date();
    const expected = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-01`;
    expect(a.body.cycle_start).toBe(expected);
  });

  it("agrees across the start answer, /user/api, /user/quota and the sums of pools", async () => {
    h.emu.control.settings({ cycleLimit: 10 });
    await h.create();
    const last = await h.create();
    const removed = await h.create();
    await h.post("/v8/vm/remove", { id: removed.body.vmId });
    const api = (await h.get("/v8/user/api")).body;
    const quota = (await h.get("/v8/user/quota")).body;

    const meterKeys = [...QUOTA_KEYS, "residential_cycle_mb_limit", "residential_bytes_used_cycle"];
    for (const key of meterKeys) expect(quota[key]).toEqual(api[key]);
    expect(api.pools).toEqual(quota.pools);
    expect(api.pools.length).toBeGreaterThanOrEqual(2);

    for (const key of meterKeys.filter((k) => k !== "cycle_start")) {
      const sum = api.pools.reduce((acc: number, p: any) => acc + p[key], 0);
      expect(sum).toBe(api[key]);
    }
    for (const pool of api.pools) {
      expect(pool.cycle_start).toBe(api.cycle_start);
      expect(typeof pool.subscription_id).toBe("string");
      expect(typeof pool.plan_id).toBe("string");
      expect(typeof pool.plan_name).toBe("string");
    }
    expect(api).toMatchObject({
      running_session_limit: 3,
      running_sessions_used: 2,
      running_sessions_remaining: 1,
      cycle_session_limit: 10,
      cycle_sessions_used: 3,
      cycle_sessions_remaining: 7,
    });
    // The last start answer was taken before the third session ended.
    expect(last.body.quota.cycle_sessions_used).toBe(2);
  });

  it("reports the default residential allowance and contact on /user/api only", async () => {
    const api = (await h.get("/v8/user/api")).body;
    expect(api.residential_cycle_mb_limit).toBe(1024);
    expect(api.residential_bytes_used_cycle).toBe(0);
    expect(api.feature_programmatic_access).toBe(true);
    expect(api.has_plan).toBe(true);
    expect(typeof api.contact).toBe("string");
    const quota = (await h.get("/v8/user/quota")).body;
    expect(quota).not.toHaveProperty("contact");
    expect(quota).not.toHaveProperty("feature_programmatic_access");
    expect(quota.has_plan).toBe(true);
  });

  it("reports a null residential limit for an account without allowance", async () => {
    const api = (await h.get("/v8/user/api", { key: "rb_no_residential" })).body;
    expect(api.residential_cycle_mb_limit).toBeNull();
    for (const pool of api.pools) expect(pool.residential_cycle_mb_limit).toBeNull();
  });

  it("keeps accounts apart", async () => {
    await h.create();
    const other = (await h.get("/v8/user/api", { key: "rb_no_location" })).body;
    expect(other.running_sessions_used).toBe(0);
    expect(other.running_session_limit).toBe(5);
  });
});
