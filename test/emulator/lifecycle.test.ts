import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { sleep, startHarness, waitForStatus } from "./harness";
import { eventually } from "../helpers/eventually";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 10 });
  h.emu.control.addAccount({ apiKey: "rb_second_account" });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

describe("session lifecycle", () => {
  it("starts in starting and becomes running after preparation", async () => {
    // Held, so that a loaded machine cannot finish the preparation before the first look.
    h.emu.control.preparation({ paused: true });
    const a = await h.create();
    expect(await h.status(a.body.vmId)).toBe("starting");
    h.emu.control.preparation({ paused: false });
    await waitForStatus(h, a.body.vmId, "running");
    expect(h.emu.control.sessions()[0]?.runningAt).not.toBeNull();
  });

  it("takes about prepMs to prepare", async () => {
    // Long enough that a loaded machine still looks while it is starting.
    h.emu.control.settings({ prepMs: 2_000, prepJitterMs: 0 });
    const a = await h.create();
    await sleep(60);
    expect(await h.status(a.body.vmId)).toBe("starting");
    await waitForStatus(h, a.body.vmId, "running");
  });

  it("ends preparation in error for the next N sessions when told to fail", async () => {
    h.emu.control.preparation({ failNext: 2 });
    const a = await h.create();
    const b = await h.create();
    const c = await h.create();
    await waitForStatus(h, a.body.vmId, "error");
    await waitForStatus(h, b.body.vmId, "error");
    await waitForStatus(h, c.body.vmId, "running");
  });

  it("frees the running slot of a session whose preparation failed", async () => {
    h.emu.control.preparation({ failNext: 1 });
    const a = await h.create();
    await waitForStatus(h, a.body.vmId, "error");
    expect((await h.get("/v8/user/quota")).body.running_sessions_used).toBe(0);
    expect(h.emu.control.books()).toMatchObject({ errored: 1, neverEnded: 0 });
  });

  it("keeps sessions starting while preparation is paused and finishes them on resume", async () => {
    h.emu.control.preparation({ paused: true });
    const a = await h.create();
    await sleep(100);
    expect(await h.status(a.body.vmId)).toBe("starting");
    h.emu.control.preparation({ paused: false });
    expect(await h.status(a.body.vmId)).toBe("running");
  });

  // `stopping` lasts 2 s here rather than the default 200 ms, so that a loaded machine still sees it.
  it("moves a starting session to stopping and then deleted on remove", async () => {
    h.emu.control.settings({ stopMs: 2_000 });
    const a = await h.create();
    expect((await h.post("/v8/vm/remove", { id: a.body.vmId })).body).toEqual({ status: "ok" });
    expect(await h.status(a.body.vmId)).toBe("stopping");
    await waitForStatus(h, a.body.vmId, "deleted");
  });

  it("moves a running session to stopping and then deleted on remove", async () => {
    const a = await h.create();
    await waitForStatus(h, a.body.vmId, "running");
    h.emu.control.settings({ stopMs: 2_000 });
    await h.post("/v8/vm/remove", { id: a.body.vmId });
    expect(await h.status(a.body.vmId)).toBe("stopping");
    await waitForStatus(h, a.body.vmId, "deleted");
    expect(h.emu.control.sessions()[0]?.endedAt).not.toBeNull();
  });

  it("never lets a removed session become running", async () => {
    // Held while `a` is removed: on a loaded machine its preparation could otherwise end before the remove
    // arrives, and the test would prove nothing (or fail for the wrong reason).
    h.emu.control.preparation({ paused: true });
    const a = await h.create();
    expect((await h.post("/v8/vm/remove", { id: a.body.vmId })).body.status).toBe("ok");
    h.emu.control.preparation({ paused: false });
    // Prepared after `a` for as long: once `b` runs, `a`'s preparation would have ended too.
    const b = await h.create();
    await waitForStatus(h, b.body.vmId, "running");
    expect(["stopping", "deleted"]).toContain(await h.status(a.body.vmId));
    expect(h.emu.control.sessions().find((s) => s.vmId === a.body.vmId)?.runningAt).toBeNull();
  });

  it("answers ok when ending an ended session, in stopping, suspended or deleted", async () => {
    const a = await h.create();
    await h.post("/v8/vm/remove", { id: a.body.vmId });
    expect((await h.post("/v8/vm/remove", { id: a.body.vmId })).body.status).toBe("ok");
    await waitForStatus(h, a.body.vmId, "deleted");
    expect((await h.post("/v8/vm/remove", { id: a.body.vmId })).body.status).toBe("ok");
    const b = await h.create();
    h.emu.control.setState(b.body.vmId, "suspended");
    expect((await h.post("/v8/vm/remove", { id: b.body.vmId })).body.status).toBe("ok");
    expect(await h.status(b.body.vmId)).toBe("suspended");
  });

  it("answers ok when ending a session whose preparation failed", async () => {
    h.emu.control.preparation({ failNext: 1 });
    const a = await h.create();
    await waitForStatus(h, a.body.vmId, "error");
    expect((await h.post("/v8/vm/remove", { id: a.body.vmId })).body.status).toBe("ok");
    expect(await h.status(a.body.vmId)).toBe("error");
  });

  it("refuses to end an unknown session with denied", async () => {
    const a = await h.post("/v8/vm/remove", { id: "vm-000000000000000000000000" });
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/^id\b/);
  });

  it("refuses to end another account's session with denied and leaves it alone", async () => {
    const a = await h.create();
    const other = await h.post("/v8/vm/remove", { id: a.body.vmId }, { key: "rb_second_account" });
    expect(other.body.status).toBe("denied");
    expect(h.emu.control.sessions()[0]?.status).not.toBe("stopping");
  });

  it("refuses a remove without id, or with an id that is not a string", async () => {
    const missing = await h.post("/v8/vm/remove", {});
    expect(missing.body).toMatchObject({ status: "denied" });
    expect(missing.body.message).toMatch(/^id\b/);
    const wrong = await h.post("/v8/vm/remove", { id: 5 });
    expect(wrong.body.message).toMatch(/^id\b/);
  });

  it("forces a state through the control surface and restarts preparation when forced back to starting", async () => {
    const a = await h.create();
    h.emu.control.setState(a.body.vmId, "error");
    expect(await h.status(a.body.vmId)).toBe("error");
    h.emu.control.setState(a.body.vmId, "starting");
    await waitForStatus(h, a.body.vmId, "running");
  });

  it("deletes a session at once when ended out of band", async () => {
    const a = await h.create();
    h.emu.control.endSession(a.body.vmId);
    expect(await h.status(a.body.vmId)).toBe("deleted");
  });
});

describe("GET /v8/vm/data", () => {
  it("returns only the asked session with the documented fields", async () => {
    // Held, so that a loaded machine cannot finish the preparation before the look (it did, twice, in full runs).
    h.emu.control.preparation({ paused: true });
    try {
      await h.create();
      const a = await h.create({ browser: "firefox" });
      const d = await h.get(`/v8/vm/data?id=${a.body.vmId}`);
      expect(d.body.status).toBe("ok");
      expect(d.body.data).toHaveLength(1);
      const entry = d.body.data[0];
      expect(entry.name).toBe("Mozilla Firefox");
      expect(entry.status).toBe("starting");
      expect(entry.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    } finally {
      h.emu.control.preparation({ paused: false });
    }
  });

  it("masks the middle of the id but keeps the prefix and the last four characters", async () => {
    const a = await h.create();
    const vmId: string = a.body.vmId;
    const entry = (await h.get(`/v8/vm/data?id=${vmId}`)).body.data[0];
    expect(entry.id).not.toBe(vmId);
    expect(entry.id).toHaveLength(vmId.length);
    expect(entry.id.startsWith("vm-")).toBe(true);
    expect(entry.id.slice(-4)).toBe(vmId.slice(-4));
    expect(entry.id.slice(3, -4)).toMatch(/^\*+$/);
  });

  it("returns empty data for an unknown id and for another account's session", async () => {
    const a = await h.create();
    expect((await h.get("/v8/vm/data?id=vm-unknown")).body).toEqual({ status: "ok", data: [] });
    expect((await h.get(`/v8/vm/data?id=${a.body.vmId}`, { key: "rb_second_account" })).body.data).toEqual([]);
  });

  it("does not accept a masked id as an id", async () => {
    const a = await h.create();
    const masked = (await h.get(`/v8/vm/data?id=${a.body.vmId}`)).body.data[0].id;
    expect((await h.get(`/v8/vm/data?id=${encodeURIComponent(masked)}`)).body.data).toEqual([]);
  });

  it("lists the account's sessions newest first without an id", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await h.create()).body.vmId);
    await h.create({}, { key: "rb_second_account" });
    const list = (await h.get("/v8/vm/data")).body.data;
    expect(list).toHaveLength(4);
    expect(list.map((e: any) => e.id.slice(-4))).toEqual(ids.reverse().map((id) => id.slice(-4)));
    const times = list.map((e: any) => Date.parse(e.created));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
  });

  it("masks every id of the list by the same rule: the prefix and the last four characters shown, the rest as *", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.create()).body.vmId);
    const listed: string[] = (await h.get("/v8/vm/data")).body.data.map((e: any) => e.id);
    expect(listed).toEqual(ids.reverse().map((id) => `vm-${"*".repeat(id.length - 7)}${id.slice(-4)}`));
    for (const masked of listed) expect((await h.post("/v8/vm/remove", { id: masked })).body.status).toBe("denied");
  });

  it("lists ended sessions too, and leaves out sessions older than a month", async () => {
    const old = await h.create();
    const ended = await h.create();
    await h.post("/v8/vm/remove", { id: ended.body.vmId });
    h.emu.control.setCreated(old.body.vmId, new Date(Date.now() - 40 * 24 * 3600 * 1000).toISOString());
    const list = (await h.get("/v8/vm/data")).body.data;
    expect(list).toHaveLength(1);
    expect(list[0].status).toBe("stopping");
    // Asked for by id, the old session is still reported.
    expect((await h.get(`/v8/vm/data?id=${old.body.vmId}`)).body.data).toHaveLength(1);
  });

  it("reports sessions that reach running in the list", async () => {
    const a = await h.create();
    await eventually(async () => (await h.get("/v8/vm/data")).body.data[0]?.status === "running");
    expect(await h.status(a.body.vmId)).toBe("running");
  });
});
