import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness, waitForStatus } from "./harness";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 10 });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

async function ctl(method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.emu.controlUrl}${path}`, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...(method === "POST" ? { headers: { "content-type": "application/json" } } : {}),
  });
  return { http: res.status, body: (await res.json()) as any };
}

describe("control surface over HTTP", () => {
  it("lists every session unmasked, with its link id and owner but never the API key", async () => {
    h.emu.control.preparation({ paused: true });
    const a = await h.create({ url: "https://example.test", country: "fr", callbackUrl: "https://cb.example.test/" });
    const { body } = await ctl("GET", "/sessions");
    expect(body.sessions).toHaveLength(1);
    const s = body.sessions[0];
    expect(s).toMatchObject({
      vmId: a.body.vmId,
      accountId: "acct-1",
      status: "starting",
      browser: "chrome",
      url: "https://example.test",
      country: "fr",
      egress: null,
      shareLanguage: "en",
      callbackUrl: "https://cb.example.test/",
      linkId: a.body.shareUrlPath.split("?")[1],
      idempotencyKey: null,
      runningAt: null,
      endedAt: null,
      locationApplied: true,
      locationReason: null,
      apiVersion: "v8",
    });
    expect(JSON.stringify(body)).not.toContain(h.emu.apiKey);
  });

  it("keeps books of sessions and calls", async () => {
    const a = await h.create();
    const b = await h.create();
    await h.create();
    await waitForStatus(h, a.body.vmId, "running");
    await h.post("/v8/vm/remove", { id: b.body.vmId });
    await h.get("/v8/vm/data");
    await h.get("/v8/image", { key: null });
    await h.get("/v8/user/api");
    await h.get("/v8/user/quota");
    const { body } = await ctl("GET", "/books");
    expect(body).toMatchObject({
      started: 3,
      ended: 1,
      errored: 0,
      maxRunning: 3,
      createCalls: 3,
      removeCalls: 1,
      statusCalls: expect.any(Number),
      imageCalls: 1,
      accountCalls: 1,
      quotaCalls: 1,
      idempotentReplays: 0,
      rateLimited: 0,
    });
    expect(body.neverEnded).toBe(body.running + body.starting);
    expect(body.neverEnded).toBe(2);
  });

  it("records requests without keys or link ids and can clear the log", async () => {
    const a = await h.create();
    await h.get(`/v8/vm/data?id=${a.body.vmId}`);
    const { body } = await ctl("GET", "/requests");
    expect(body.map((r: any) => r.operation)).toEqual(["create", "status"]);
    expect(body[0]).toMatchObject({ seq: 1, method: "POST", path: "/v8/vm/create", httpStatus: 200, status: "ok", vmId: a.body.vmId });
    expect(body[1].path).toBe("/v8/vm/data");
    expect(typeof body[0].t).toBe("number");
    const text = JSON.stringify(body);
    expect(text).not.toContain(h.emu.apiKey);
    expect(text).not.toContain(a.body.shareUrlPath.split("?")[1]);
    expect((await ctl("DELETE", "/requests")).http).toBe(200);
    expect((await ctl("GET", "/requests")).body).toEqual([]);
  });

  it("changes settings and reports them", async () => {
    const { body } = await ctl("POST", "/settings", { prepMs: 10, runningLimit: 1, cycleLimit: 4, locationCapacity: { "jp-tyo": 0 } });
    expect(body).toMatchObject({ prepMs: 10, runningLimit: 1, cycleLimit: 4 });
    expect(body.locationCapacity["jp-tyo"]).toBe(0);
    const api = (await h.get("/v8/user/api")).body;
    expect(api).toMatchObject({ running_session_limit: 1, cycle_session_limit: 4 });
    expect((await ctl("POST", "/settings", { bogus: 1 })).http).toBe(400);
    expect((await ctl("POST", "/settings", { prepMs: -1 })).body.message).toMatch(/^prepMs/);
  });

  it("adds and clears faults", async () => {
    const added = await ctl("POST", "/faults", { operation: "image", kind: "error", count: 1 });
    expect(added.body.fault).toMatchObject({ operation: "image", kind: "error", remaining: 1 });
    expect((await ctl("POST", "/faults", { operation: "image", kind: "nope" })).http).toBe(400);
    await ctl("DELETE", "/faults");
    expect((await h.get("/v8/image", { key: null })).body.status).toBe("ok");
  });

  it("controls preparation", async () => {
    expect((await ctl("POST", "/preparation", { paused: true })).body).toEqual({ failNext: 0, paused: true });
    const a = await h.create();
    await new Promise((r) => setTimeout(r, 80));
    expect(await h.status(a.body.vmId)).toBe("starting");
    await ctl("POST", "/preparation", { paused: false, failNext: 1 });
    expect(await h.status(a.body.vmId)).toBe("running");
    const b = await h.create();
    await waitForStatus(h, b.body.vmId, "error");
  });

  it("ends a session out of band and forces states", async () => {
    const a = await h.create();
    const ended = await ctl("POST", `/sessions/${a.body.vmId}/end`);
    expect(ended.body.session.status).toBe("deleted");
    const b = await h.create();
    const forced = await ctl("POST", `/sessions/${b.body.vmId}/state`, { status: "running" });
    expect(forced.body.session.status).toBe("running");
    expect(await h.status(b.body.vmId)).toBe("running");
    expect((await ctl("POST", `/sessions/${b.body.vmId}/state`, { status: "flying" })).http).toBe(400);
    expect((await ctl("POST", "/sessions/vm-nope/end")).http).toBe(404);
  });

  it("adds accounts and refuses a duplicate key", async () => {
    const key = `rb_added_${Math.random().toString(16).slice(2)}`;
    const added = await ctl("POST", "/accounts", { apiKey: key, runningLimit: 2, v7Plan: "credits", credits: 10 });
    expect(added.body.accountId).toMatch(/^acct-\d+$/);
    const api = (await h.get("/v8/user/api", { key })).body;
    expect(api.running_session_limit).toBe(2);
    expect((await ctl("POST", "/accounts", { apiKey: key })).http).toBe(400);
    expect((await ctl("POST", "/accounts", { apiKey: "x", runningLimit: "many" })).body.message).toMatch(/^runningLimit/);
  });

  it("changes an account's contact address, JSON only, refusing unknown accounts and fields", async () => {
    const key = `rb_contact_${Math.random().toString(16).slice(2)}`;
    const { accountId } = h.emu.control.addAccount({ apiKey: key, contact: "before@example.test" });
    const changed = await ctl("POST", `/accounts/${accountId}`, { contact: "after@example.test" });
    expect(changed.body).toEqual({ accountId, contact: "after@example.test" });
    expect((await h.get("/v8/user/api", { key })).body.contact).toBe("after@example.test");
    expect((await h.get("/v7/user/api", { key })).body.contact).toBe("after@example.test");
    expect((await ctl("POST", "/accounts/acct-999", { contact: "x@example.test" })).http).toBe(404);
    expect((await ctl("POST", `/accounts/${accountId}`, { contact: "" })).body.message).toMatch(/^contact/);
    expect((await ctl("POST", `/accounts/${accountId}`, { apiKey: "rb_new" })).body.message).toBe("apiKey: unknown field");
    const plain = await fetch(`${h.emu.controlUrl}/accounts/${accountId}`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ contact: "form@example.test" }),
    });
    expect(plain.status).toBe(415);
    expect((await h.get("/v8/user/api", { key })).body.contact).toBe("after@example.test");
  });

  it("resets sessions, logs, faults, counters, keys and settings but keeps accounts", async () => {
    const key = `rb_keep_${Math.random().toString(16).slice(2)}`;
    h.emu.control.addAccount({ apiKey: key });
    await h.create({ idempotencyKey: "k1" });
    h.emu.control.settings({ runningLimit: 1, prepMs: 5 });
    h.emu.control.fault({ operation: "image", kind: "error" });
    expect((await ctl("POST", "/reset")).http).toBe(200);
    expect(h.emu.control.sessions()).toEqual([]);
    expect(h.emu.control.requests()).toEqual([]);
    expect(h.emu.control.faults()).toEqual([]);
    expect(h.emu.control.books()).toMatchObject({ started: 0, createCalls: 0 });
    expect(h.emu.control.settings()).toMatchObject({ runningLimit: 10, prepMs: 40 });
    expect((await h.get("/v8/user/api", { key })).body.status).toBe("ok");
    const again = await h.create({ idempotencyKey: "k1" });
    expect(h.emu.control.books().idempotentReplays).toBe(0);
    expect(again.body.status).toBe("ok");
  });

  it("answers unknown control paths with 404 and wrong methods with 405", async () => {
    expect((await ctl("GET", "/nothing")).http).toBe(404);
    expect((await ctl("PUT", "/books")).http).toBe(405);
  });

  it("does not log control requests", async () => {
    await ctl("GET", "/books");
    expect(h.emu.control.requests()).toEqual([]);
  });

  it("serves the OpenAPI document", async () => {
    const { body } = await ctl("GET", "/openapi.json");
    expect(body.openapi).toBe("3.1.0");
  });
});

describe("startEmulator", () => {
  it("exposes the documented URLs", () => {
    expect(h.emu.apiBaseUrl).toBe(`${h.emu.origin}/v8`);
    expect(h.emu.v7BaseUrl).toBe(`${h.emu.origin}/v7`);
    expect(h.emu.controlUrl).toBe(`${h.emu.origin}/_emulator`);
    expect(h.emu.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(h.emu.shareBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(h.emu.apiKey).toMatch(/^rb_test_[0-9a-f]{32}$/);
  });

  it("closes idempotently and stops answering", async () => {
    const { startEmulator } = await import("../../emulator");
    const emu = await startEmulator({ prepMs: 1000 });
    await fetch(`${emu.apiBaseUrl}/vm/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ browser: "chrome" }),
    });
    await Promise.all([emu.close(), emu.close()]);
    await emu.close();
    await expect(fetch(`${emu.apiBaseUrl}/image`)).rejects.toThrow();
  });

  it("makes ids repeatable with a seed", async () => {
    const { startEmulator } = await import("../../emulator");
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const emu = await startEmulator({ seed: 42 });
      const res = await fetch(`${emu.apiBaseUrl}/vm/create`, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ browser: "chrome" }),
      });
      ids.push(((await res.json()) as any).vmId + emu.apiKey);
      await emu.close();
    }
    expect(ids[0]).toBe(ids[1]);
  });
});

describe("seeding sessions", () => {
  it("puts back a recorded session with its vmId, share link and idempotency key, running and usable", async () => {
    const { http, body } = await ctl("POST", "/sessions", {
      vmId: "vm-0123456789abcdef01234567",
      linkId: "AbCdEfGhIjKlMnOp",
      browser: "firefox",
      shareLanguage: "de",
      idempotencyKey: "recorded-key",
    });
    expect(http).toBe(200);
    expect(body.session).toMatchObject({ vmId: "vm-0123456789abcdef01234567", status: "running", accountId: "acct-1", idempotencyKey: "recorded-key" });
    expect(await h.status("vm-0123456789abcdef01234567")).toBe("running");
    const viewer = await fetch(`${h.emu.shareBase}/de/s?AbCdEfGhIjKlMnOp`);
    expect(viewer.status).toBe(200);
    expect(h.emu.control.books().running).toBe(1);
  });

  it("refuses a seed whose vmId exists already or lacks a share link id", async () => {
    const seed = { vmId: "vm-0123456789abcdef01234568", linkId: "AbCdEfGhIjKlMnOq", browser: "chrome" };
    expect((await ctl("POST", "/sessions", seed)).http).toBe(200);
    expect((await ctl("POST", "/sessions", { ...seed, linkId: "ZyXwVuTsRqPoNmLk" })).http).toBe(400);
    const noLink = await ctl("POST", "/sessions", { vmId: "vm-0123456789abcdef01234569", browser: "chrome" });
    expect(noLink).toMatchObject({ http: 400, body: { message: expect.stringMatching(/^linkId/) } });
  });
});
