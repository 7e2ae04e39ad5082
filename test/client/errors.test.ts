import { inspect } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { RemoteBrowserError, SERVICE_TEXT_MAX, isRemoteBrowserError, serviceTextScrubber } from "../../client";
import { errorFromAnswer } from "../../client/errors";
import { thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

describe("service refusals through the client", () => {
  it("maps a bad key to denied, with the service's message and HTTP status, without retrying", async () => {
    const err = await thrown(() => t.client({ apiKey: "rb_test_not_a_key" }).account());
    expect(isRemoteBrowserError(err)).toBe(true);
    expect(err).toMatchObject({ code: "denied", operation: "read account", serverMessage: "invalid API key", httpStatus: 401 });
    expect(err.message).toContain('service message: "invalid API key"');
    expect(t.requests("account")).toHaveLength(1);
  });

  it("hides the key and the idempotency key that a refusal repeats, in every spelling", async () => {
    const apiKey = 'sk_wrong/k+y="q"';
    const idempotencyKey = "user-chosen-key-7f3a";
    t.emu.control.fault({ operation: "create", kind: "denied_echo" });
    const err = await thrown(() => t.client({ apiKey }).createSession({ browser: "chrome", idempotencyKey }));
    expect(err).toMatchObject({ code: "denied", operation: "create session", httpStatus: 401 });
    // The emulator did repeat them: the raw header, the URL-encoded key and the body.
    expect(err.serverMessage).toMatch(/^invalid API key \(credentials presented: Bearer \[redacted\]; key=\[redacted\]; request body: .*"idempotencyKey":"\[redacted\]"/);
    for (const text of [err.message, err.serverMessage as string]) {
      for (const secret of [apiKey, encodeURIComponent(apiKey), JSON.stringify(apiKey).slice(1, -1), idempotencyKey]) expect(text).not.toContain(secret);
    }
  });

  it("caps the service's text and hides any derived idempotency key or bearer credential in it", () => {
    const scrub = serviceTextScrubber([undefined, "ab"]);
    const derived = `prb-${"0a".repeat(24)}`;
    expect(scrub(`key ${derived} taken; Authorization: Bearer sk_other_account`)).toBe("key prb-[redacted] taken; Authorization: Bearer [redacted]");
    // Too short to be searched for without garbling every word.
    expect(scrub("about")).toBe("about");
    const long = scrub("x".repeat(SERVICE_TEXT_MAX + 50));
    expect(long).toBe(`${"x".repeat(SERVICE_TEXT_MAX)}… (50 more characters not shown)`);
  });

  it("maps ending an unknown session to denied and names the session", async () => {
    const err = await thrown(() => t.client().removeSession("vm-0123456789ab"));
    expect(err).toMatchObject({ code: "denied", operation: "end session", vmId: "vm-0123456789ab", serverMessage: "id: unknown session" });
    expect(err.message).toContain("vmId vm-0123456789ab");
    expect(t.requests("remove")).toHaveLength(1);
  });

  it("maps an invalid field to denied with the service's explanation, even with an idempotency key", async () => {
    const err = await thrown(() => t.client().createSession({ browser: "safari", idempotencyKey: "invalid-field" }));
    expect(err).toMatchObject({ code: "denied", operation: "create session" });
    expect(err.serverMessage).toMatch(/^browser: "safari" is not enabled/);
    expect(t.requests("create")).toHaveLength(1);
    expect(t.emu.control.books().started).toBe(0);
  });

  it("maps the running limit to upgrade and does not retry it", async () => {
    t.emu.control.settings({ runningLimit: 1 });
    const client = t.client();
    await client.createSession({ browser: "chrome" });
    const err = await thrown(() => client.createSession({ browser: "chrome", idempotencyKey: "over-the-limit" }));
    expect(err).toMatchObject({ code: "upgrade", operation: "create session" });
    expect(err.serverMessage).toMatch(/running session limit reached \(1 of 1\)/);
    expect(err.message).toContain("(upgrade)");
    expect(t.requests("create")).toHaveLength(2);
    expect(t.emu.control.books().started).toBe(1);
  });

  it("maps the cycle limit to upgrade", async () => {
    t.emu.control.settings({ cycleLimit: 1 });
    const client = t.client();
    const first = await client.createSession({ browser: "chrome" });
    await client.removeSession(first.vmId);
    const err = await thrown(() => client.createSession({ browser: "chrome", idempotencyKey: "next-in-cycle" }));
    expect(err).toMatchObject({ code: "upgrade" });
    expect(err.serverMessage).toMatch(/cycle session limit reached \(1 of 1\)/);
    expect(t.requests("create")).toHaveLength(2);
  });

  it("does not retry an insecure answer whose reason is not the rate limit", async () => {
    t.emu.control.fault({ operation: "quota", kind: "insecure", count: 3 });
    const err = await thrown(() => t.client().quota());
    expect(err).toMatchObject({ code: "insecure", reason: "suspicious_request", rateLimited: false });
    expect(t.requests("quota")).toHaveLength(1);
    expect(t.backoff).toEqual([]);
  });

  it("retries an injected rate limit after the service's Retry-After, then succeeds", async () => {
    t.emu.control.fault({ operation: "quota", kind: "rate_limited", count: 2 });
    const quota = await t.client().quota();
    expect(quota.status).toBe("ok");
    const log = t.requests("quota");
    expect(log.map((r) => [r.httpStatus, r.status])).toEqual([
      [429, "insecure"],
      [429, "insecure"],
      [200, "ok"],
    ]);
    // Retry-After: 1 (second) is longer than the first backoff steps, so it decides the wait.
    expect(t.backoff).toEqual([1000, 1000]);
    expect(t.emu.control.books().rateLimited).toBe(2);
    // The refusals reached the key's request budget, which paces the client's calls from now on.
    expect(t.client().transport.budget.state()).toMatchObject({ paced: true, refusals: 2 });
  });

  it("retries the emulator's own per-key rate limit past maxAttempts, and reports it as rate_limited once the retry budget is spent", async () => {
    t.emu.control.settings({ rateLimit: 1 });
    const client = t.client({ retry: { maxAttempts: 2, maxElapsedMs: 3_500 } });
    // The clock stands still for the emulator's bucket (the client's sleep is instant and its clock the
    // recording one's): however slowly a loaded machine runs the attempts, the bucket is never refilled.
    vi.useFakeTimers({ toFake: ["Date"] });
    let err: Awaited<ReturnType<typeof thrown>>;
    try {
      await client.quota();
      err = await thrown(() => client.quota());
    } finally {
      vi.useRealTimers();
    }
    expect(err).toMatchObject({ code: "rate_limited", reason: "rate_limited", rateLimited: true, httpStatus: 429, retryAfterMs: 1000 });
    expect(err.message).toMatch(/the per-key rate limit was still exceeded after 4 attempts over \d+ s \(insecure, reason rate_limited\)/);
    expect(t.requests("quota").map((r) => r.httpStatus)).toEqual([200, 429, 429, 429, 429]);
    expect(t.backoff).toEqual([1000, 1000, 1000]);
  });

  it("retries a service error N times and then succeeds, one request per attempt", async () => {
    t.emu.control.fault({ operation: "status", kind: "error", count: 3 });
    const client = t.client();
    const { vmId } = await client.createSession({ browser: "chrome" });
    const entry = await client.session(vmId);
    expect(entry?.name).toBe("Google Chrome");
    expect(t.requests("status").map((r) => r.status)).toEqual(["error", "error", "error", "ok"]);
    expect(t.backoff).toHaveLength(3);
  });

  it("gives up on a persisting service error after maxAttempts and keeps its message, operation and vmId", async () => {
    const client = t.client({ retry: { maxAttempts: 3 } });
    const { vmId } = await client.createSession({ browser: "chrome" });
    t.emu.control.fault({ operation: "remove", kind: "error", count: 10 });
    const err = await thrown(() => client.removeSession(vmId));
    expect(err).toMatchObject({ code: "service", operation: "end session", vmId, serverMessage: "injected fault" });
    expect(err.message).toBe(`end session failed: the service reported a fault on its side (error); service message: "injected fault"; vmId ${vmId}`);
    expect(t.requests("remove")).toHaveLength(3);
  });

  it("never retries a create without an idempotency key", async () => {
    t.emu.control.fault({ operation: "create", kind: "error", count: 1 });
    const err = await thrown(() => t.client().createSession({ browser: "chrome" }));
    expect(err).toMatchObject({ code: "service", operation: "create session" });
    expect(t.requests("create")).toHaveLength(1);
    expect(t.backoff).toEqual([]);
  });

  it("retries a create that carries an idempotency key", async () => {
    t.emu.control.fault({ operation: "create", kind: "error", count: 2 });
    const answer = await t.client().createSession({ browser: "chrome", idempotencyKey: "retry-me" });
    expect(t.requests("create").map((r) => r.status)).toEqual(["error", "error", "ok"]);
    expect(t.emu.control.sessions().map((s) => s.vmId)).toEqual([answer.vmId]);
  });

  it("refuses locally, without a request, what the API's schema rejects", async () => {
    const err = await thrown(() => t.client().createSession({ browser: "chrome", idempotencyKey: "" }));
    expect(err).toMatchObject({ code: "invalid_request", operation: "create session" });
    expect(err.message).toContain("idempotencyKey");
    expect(t.requests()).toHaveLength(0);
  });
});

describe("the error family", () => {
  it("is recognised by its brand, also on a copy of the class that is not the one that threw", () => {
    const err = new RemoteBrowserError("denied", "refused", { operation: "test" });
    expect(isRemoteBrowserError(err)).toBe(true);
    // What a copied module would produce: another object carrying the same Symbol.for brand.
    const foreign = Object.assign(new Error("copy"), { [Symbol.for("pulumi-remote-browser.RemoteBrowserError")]: true });
    expect(isRemoteBrowserError(foreign)).toBe(true);
    expect(isRemoteBrowserError(Object.assign(new Error("x"), { code: "denied" }))).toBe(false);
    expect(isRemoteBrowserError(null)).toBe(false);
    expect(isRemoteBrowserError("denied")).toBe(false);
  });

  it("has a fixed name and a stable code", () => {
    const err = new RemoteBrowserError("timeout", "slow", { operation: "read quota" });
    expect(err.name).toBe("RemoteBrowserError");
    expect(err.code).toBe("timeout");
    expect(err.message).toBe("read quota failed: slow");
  });

  it("never shows the API key, in any error message or anywhere inside the error", async () => {
    const key = t.emu.apiKey;
    const client = t.client({ retry: { maxAttempts: 2 } });
    const { vmId } = await client.createSession({ browser: "chrome" });
    const errors: unknown[] = [];
    const collect = async (fn: () => Promise<unknown>) => errors.push(await thrown(fn));

    await collect(() => t.client({ apiKey: `${key}x` }).account());
    await collect(() => client.removeSession("vm-unknown00000"));
    await collect(() => client.createSession({ browser: "netscape" }));
    t.emu.control.fault({ operation: "quota", kind: "insecure" });
    await collect(() => client.quota());
    t.emu.control.fault({ operation: "remove", kind: "error", count: 2 });
    await collect(() => client.removeSession(vmId));
    t.emu.control.fault({ operation: "account", kind: "reset", count: 2 });
    await collect(() => client.account());
    t.emu.control.fault({ operation: "quota", kind: "rate_limited", count: 3 });
    await collect(() => t.client({ retry: { maxElapsedMs: 2_500 } }).quota());
    t.emu.control.fault({ operation: "status", kind: "delay", delayMs: 200, count: 2 });
    await collect(() => t.client({ attemptTimeoutMs: 20, retry: { maxAttempts: 2 } }).session(vmId));
    await collect(() => t.client({ baseUrl: "http://example.invalid/v8" }).account());
    await collect(() => t.client({ baseUrl: t.emu.origin.replace(/:\d+$/, ":1") }).quota());

    expect(errors).toHaveLength(10);
    expect(new Set(errors.map((e) => (e as RemoteBrowserError).code))).toEqual(new Set(["denied", "insecure", "rate_limited", "service", "network", "timeout", "insecure_transport"]));
    for (const err of errors) {
      expect(isRemoteBrowserError(err)).toBe(true);
      expect((err as Error).message).not.toContain(key);
      expect(inspect(err, { depth: 10, showHidden: true })).not.toContain(key);
    }
  });
});

describe("errorFromAnswer (a refusal of the service as an error of the family)", () => {
  const ctx = { operation: "read quota", httpStatus: 403 };
  const rows: Array<[string, { status: "denied" | "upgrade" | "insecure" | "error"; message?: string; reason?: string }, string, RegExp, boolean]> = [
    ["denied", { status: "denied", message: "invalid API key" }, "denied", /^read quota failed: the service refused the request \(denied\); service message: "invalid API key"$/, false],
    ["upgrade", { status: "upgrade", message: "limit" }, "upgrade", /the account's plan does not include this or one of its limits is reached \(upgrade\)/, false],
    [
      "insecure, rate limited",
      { status: "insecure", reason: "rate_limited" },
      "rate_limited",
      /the per-key rate limit was exceeded \(insecure, reason rate_limited\); service message: "\(no message\)"$/,
      true,
    ],
    ["insecure, another reason", { status: "insecure", reason: "suspicious_request" }, "insecure", /a security check failed \(insecure, reason suspicious_request\)/, false],
    ["insecure, no reason", { status: "insecure" }, "insecure", /a security check failed \(insecure\);/, false],
    ["error", { status: "error", message: "boom" }, "service", /the service reported a fault on its side \(error\); service message: "boom"/, false],
  ];
  for (const [name, answer, code, message, rateLimited] of rows) {
    it(`maps ${name}`, () => {
      const err = errorFromAnswer(answer, ctx, (text) => text);
      expect(err).toMatchObject({ code, operation: "read quota", httpStatus: 403, reason: answer.reason, rateLimited });
      expect(err.message).toMatch(message);
      expect(isRemoteBrowserError(err)).toBe(true);
    });
  }

  it("keeps the cause it was given, and only then has one", () => {
    const cause = new Error("socket hang up");
    expect(new RemoteBrowserError("network", "no answer", { operation: "read quota", cause }).cause).toBe(cause);
    expect("cause" in new RemoteBrowserError("network", "no answer", { operation: "read quota" })).toBe(false);
  });
});
