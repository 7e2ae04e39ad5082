import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";
import { eventually } from "../helpers/eventually";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

describe("fault injection", () => {
  it("answers status error with 'injected fault' for the next N calls of the operation, then recovers", async () => {
    h.emu.control.fault({ operation: "create", kind: "error", count: 2 });
    for (let i = 0; i < 2; i++) {
      const a = await h.create();
      expect(a.http).toBe(200);
      expect(a.body).toEqual({ status: "error", message: "injected fault" });
    }
    expect(h.emu.control.sessions()).toHaveLength(0);
    expect((await h.create()).body.status).toBe("ok");
  });

  it("only affects the named operation", async () => {
    h.emu.control.fault({ operation: "remove", kind: "error" });
    expect((await h.create()).body.status).toBe("ok");
    expect((await h.get("/v8/user/api")).body.status).toBe("ok");
  });

  it("answers insecure with a reason", async () => {
    h.emu.control.fault({ operation: "status", kind: "insecure" });
    const a = await h.get("/v8/vm/data");
    expect(a.body).toMatchObject({ status: "insecure", reason: "suspicious_request" });
    expect(typeof a.body.message).toBe("string");
  });

  it("answers 429 insecure rate_limited", async () => {
    h.emu.control.fault({ operation: "quota", kind: "rate_limited" });
    const a = await h.get("/v8/user/quota");
    expect(a.http).toBe(429);
    expect(a.body).toMatchObject({ status: "insecure", reason: "rate_limited" });
    expect(h.emu.control.books().rateLimited).toBe(1);
  });

  it("drops the connection before handling on reset: nothing is created", async () => {
    h.emu.control.fault({ operation: "create", kind: "reset" });
    await expect(h.create()).rejects.toThrow();
    expect(h.emu.control.sessions()).toHaveLength(0);
    expect(h.emu.control.requests().at(-1)).toMatchObject({ operation: "create", httpStatus: 0, status: null, fault: "reset" });
  });

  it("handles the request and then drops the connection on reset_after: the session exists", async () => {
    h.emu.control.fault({ operation: "create", kind: "reset_after" });
    await expect(h.create({ idempotencyKey: "lost-answer" })).rejects.toThrow();
    expect(h.emu.control.sessions()).toHaveLength(1);
    // The retry with the same key gets the answer that was lost, and no second session.
    const retry = await h.create({ idempotencyKey: "lost-answer" });
    expect(retry.body.status).toBe("ok");
    expect(retry.body.vmId).toBe(h.emu.control.sessions()[0]!.vmId);
    expect(h.emu.control.sessions()).toHaveLength(1);
  });

  // The delays are long next to what a loaded machine takes to deliver a request, and the looks wait for
  // the request to arrive (the books count it on arrival) rather than for a fixed time.
  it("does the work at once and answers after delayMs on delay", async () => {
    h.emu.control.fault({ operation: "create", kind: "delay", delayMs: 1_500 });
    let answered = false;
    const t0 = Date.now();
    const pending = h.create().finally(() => (answered = true));
    await eventually(async () => h.emu.control.sessions().length === 1);
    expect(answered, "the session exists before the answer").toBe(false);
    const a = await pending;
    expect(a.body.status).toBe("ok");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_490);
  });

  it("waits before doing the work on delay_before", async () => {
    h.emu.control.fault({ operation: "create", kind: "delay_before", delayMs: 3_000 });
    const t0 = Date.now();
    const pending = h.create();
    await eventually(async () => h.emu.control.books().createCalls === 1);
    expect(h.emu.control.sessions()).toHaveLength(0);
    expect((await pending).body.status).toBe("ok");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_990);
    expect(h.emu.control.sessions()).toHaveLength(1);
  });

  it("applies * to every API operation", async () => {
    h.emu.control.fault({ operation: "*", kind: "error", count: 2 });
    expect((await h.get("/v8/image", { key: null })).body.status).toBe("error");
    expect((await h.post("/v7/vm/create", { browser: "chrome" })).body.status).toBe("error");
    expect((await h.get("/v8/image", { key: null })).body.status).toBe("ok");
  });

  it("covers both forms of status with 'status' and only the list with 'list'", async () => {
    h.emu.control.fault({ operation: "list", kind: "error" });
    expect((await h.get("/v8/vm/data?id=vm-1")).body.status).toBe("ok");
    expect((await h.get("/v8/vm/data")).body.status).toBe("error");
    h.emu.control.fault({ operation: "status", kind: "error", count: 2 });
    expect((await h.get("/v8/vm/data?id=vm-1")).body.status).toBe("error");
    expect((await h.get("/v8/vm/data")).body.status).toBe("error");
  });

  it("clears faults", async () => {
    h.emu.control.fault({ operation: "image", kind: "error", count: 5 });
    expect(h.emu.control.faults()).toHaveLength(1);
    h.emu.control.clearFaults();
    expect((await h.get("/v8/image", { key: null })).body.status).toBe("ok");
  });

  it("refuses an invalid fault spec naming the field", () => {
    expect(() => h.emu.control.fault({ operation: "create", kind: "explode" as never })).toThrow(/^kind/);
    expect(() => h.emu.control.fault({ operation: "teleport" as never, kind: "error" })).toThrow(/^operation/);
    expect(() => h.emu.control.fault({ operation: "create", kind: "error", count: 0 })).toThrow(/^count/);
  });
});
