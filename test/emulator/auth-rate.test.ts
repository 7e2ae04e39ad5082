import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.emu.control.addAccount({ apiKey: "rb_no_programmatic", programmaticAccess: false });
  h.emu.control.addAccount({ apiKey: "rb_rate_second" });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

const KEYED: Array<[string, string, unknown?]> = [
  ["POST", "/v8/vm/create", { browser: "chrome" }],
  ["GET", "/v8/vm/data"],
  ["GET", "/v8/vm/data?id=vm-123"],
  ["POST", "/v8/vm/remove", { id: "vm-123" }],
  ["GET", "/v8/user/api"],
  ["GET", "/v8/user/quota"],
  ["POST", "/v7/vm/create", { browser: "chrome" }],
  ["GET", "/v7/user/api"],
  ["GET", "/v7/user/quota"],
];

describe("authentication", () => {
  it.each(KEYED)("refuses %s %s without a key with HTTP 401 and status denied", async (method, path, body) => {
    const a = await h.call(method, path, { key: null, ...(body ? { body } : {}) });
    expect(a.http).toBe(401);
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/API key/);
    expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it.each(KEYED)("refuses %s %s with an invalid key with status denied", async (method, path, body) => {
    const a = await h.call(method, path, { key: "rb_wrong", ...(body ? { body } : {}) });
    expect(a.http).toBe(401);
    expect(a.body).toMatchObject({ status: "denied", message: "invalid API key" });
  });

  it("does not echo the presented key in the answer", async () => {
    const a = await h.get("/v8/user/api", { key: "rb_secret_looking_key" });
    expect(a.text).not.toContain("rb_secret_looking_key");
  });

  it("refuses a key sent with another scheme", async () => {
    const a = await h.get("/v8/user/api", { key: null, headers: { authorization: `Basic ${h.emu.apiKey}` } });
    expect(a.body.status).toBe("denied");
  });

  it.each(KEYED)("refuses %s %s for an account without programmatic access", async (method, path, body) => {
    const a = await h.call(method, path, { key: "rb_no_programmatic", ...(body ? { body } : {}) });
    expect(a.http).toBe(403);
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/(programmatic|API) access/);
    expect(h.emu.control.sessions()).toHaveLength(0);
  });
});

describe("rate limit", () => {
  // The buckets refill by the clock: with Date held still, a burst of requests cannot earn a token back
  // however slowly a loaded machine sends it, and a refill is a step of the clock, not a real wait.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers HTTP 429 with insecure and reason rate_limited once a key exceeds its rate", async () => {
    h.emu.control.settings({ rateLimit: 3 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await h.get("/v8/user/quota"));
    expect(answers.slice(0, 3).every((a) => a.body.status === "ok")).toBe(true);
    const limited = answers[3]!;
    expect(limited.http).toBe(429);
    expect(limited.body).toMatchObject({ status: "insecure", reason: "rate_limited" });
    expect(typeof limited.body.message).toBe("string");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(h.emu.control.books().rateLimited).toBe(2);
  });

  it("counts each key separately", async () => {
    h.emu.control.settings({ rateLimit: 2 });
    await h.get("/v8/user/quota");
    await h.get("/v8/user/quota");
    expect((await h.get("/v8/user/quota")).http).toBe(429);
    expect((await h.get("/v8/user/quota", { key: "rb_rate_second" })).http).toBe(200);
  });

  it("refills the bucket over time", async () => {
    h.emu.control.settings({ rateLimit: 5 });
    for (let i = 0; i < 5; i++) await h.get("/v8/user/quota");
    expect((await h.get("/v8/user/quota")).http).toBe(429);
    // One token comes back every 200 ms at 5 per second.
    vi.setSystemTime(Date.now() + 250);
    expect((await h.get("/v8/user/quota")).http).toBe(200);
  });

  it("limits keyless image calls per client address", async () => {
    h.emu.control.settings({ rateLimit: 2 });
    await h.get("/v8/image", { key: null });
    await h.get("/v8/image", { key: null });
    const limited = await h.get("/v8/image", { key: null });
    expect(limited.http).toBe(429);
    expect(limited.body).toMatchObject({ status: "insecure", reason: "rate_limited" });
  });

  it("is off by default", async () => {
    for (let i = 0; i < 30; i++) expect((await h.get("/v8/image", { key: null })).http).toBe(200);
  });
});
