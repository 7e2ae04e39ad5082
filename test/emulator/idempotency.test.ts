import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 2 });
  h.emu.control.addAccount({ apiKey: "rb_other_account" });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

describe("idempotency keys", () => {
  it("returns the first successful answer verbatim for the same key and request, starting nothing", async () => {
    const body = { browser: "chrome", url: "https://example.test", idempotencyKey: "key-1" };
    const first = await h.post("/v8/vm/create", body);
    const again = await h.post("/v8/vm/create", body);
    expect(again.text).toBe(first.text);
    expect(h.emu.control.sessions()).toHaveLength(1);
    expect(h.emu.control.books()).toMatchObject({ started: 1, idempotentReplays: 1 });
    expect((await h.get("/v8/user/quota")).body.cycle_sessions_used).toBe(1);
  });

  it("compares requests regardless of field order", async () => {
    const first = await h.post("/v8/vm/create", { browser: "chrome", country: "de", idempotencyKey: "order" });
    const again = await h.post("/v8/vm/create", { idempotencyKey: "order", country: "de", browser: "chrome" });
    expect(again.body.vmId).toBe(first.body.vmId);
    expect(h.emu.control.sessions()).toHaveLength(1);
  });

  it("replays even when the plan limit has been reached since", async () => {
    const body = { browser: "chrome", idempotencyKey: "limit" };
    const first = await h.post("/v8/vm/create", body);
    await h.create();
    expect((await h.create()).body.status).toBe("upgrade");
    const again = await h.post("/v8/vm/create", body);
    expect(again.text).toBe(first.text);
  });

  it("refuses the same key with a different request with denied", async () => {
    await h.post("/v8/vm/create", { browser: "chrome", idempotencyKey: "reuse" });
    const a = await h.post("/v8/vm/create", { browser: "firefox", idempotencyKey: "reuse" });
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/^idempotencyKey/);
    expect(a.body.message).toMatch(/different request/);
    expect(h.emu.control.sessions()).toHaveLength(1);
  });

  it("does not consume the key when the start is refused", async () => {
    await h.create();
    await h.create();
    const body = { browser: "chrome", idempotencyKey: "after-refusal" };
    expect((await h.post("/v8/vm/create", body)).body.status).toBe("upgrade");
    await h.post("/v8/vm/remove", { id: h.emu.control.sessions()[0]!.vmId });
    const a = await h.post("/v8/vm/create", body);
    expect(a.body.status).toBe("ok");
  });

  it("keeps keys per account", async () => {
    const body = { browser: "chrome", idempotencyKey: "shared-key" };
    const mine = await h.post("/v8/vm/create", body);
    const theirs = await h.post("/v8/vm/create", body, { key: "rb_other_account" });
    expect(theirs.body.status).toBe("ok");
    expect(theirs.body.vmId).not.toBe(mine.body.vmId);
    expect(h.emu.control.sessions()).toHaveLength(2);
  });

  it("records the key on the session", async () => {
    await h.post("/v8/vm/create", { browser: "chrome", idempotencyKey: "recorded" });
    expect(h.emu.control.sessions()[0]?.idempotencyKey).toBe("recorded");
  });
});
