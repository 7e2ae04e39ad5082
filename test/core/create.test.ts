import { describe, expect, it } from "vitest";
import { generationKey } from "../../core/launch";
import { systemClock } from "../../core/context";
import { thrown, useEmulator, virtualClock } from "../helpers/emulator";

const t = useEmulator();

const SEED = "review/pr-42/preview";

describe("create", () => {
  it("waits until the session runs and records every input with what the service said", async () => {
    const inputs = {
      browser: "chrome",
      url: "https://example.com/start",
      language: "de",
      layout: "de",
      country: "de",
      egress: "residential",
      shareLanguage: "fr",
      callbackUrl: "https://example.com/done",
      idempotencyKey: "pr-42-preview-1",
      readyTimeoutSeconds: 30,
      requireLocation: false,
      __seed: SEED,
    };
    const { id, outs } = await t.provider().create(inputs);
    const [session] = t.emu.control.sessions();

    expect(id).toBe(session!.vmId);
    for (const [key, value] of Object.entries(inputs)) expect(outs, key).toHaveProperty(key, value);
    expect(outs).toMatchObject({
      vmId: id,
      status: "running",
      browserName: "Google Chrome",
      locationApplied: true,
      apiVersion: "v8",
      shareUrlPath: `/fr/s?${session!.linkId}`,
      shareUrl: `${t.emu.shareBase}/fr/s?${session!.linkId}`,
      __idempotencyKey: "pr-42-preview-1",
    });
    expect(outs.created).toBe(session!.created);
    expect(Object.entries(outs).filter(([, v]) => v === undefined || v === null)).toEqual([]);
    expect(session).toMatchObject({ status: "running", country: "de", egress: "residential", shareLanguage: "fr", idempotencyKey: "pr-42-preview-1" });
    expect(t.requests("create")).toHaveLength(1);
    expect(t.requests("remove")).toHaveLength(0);
  });

  it("starts the session under a key derived from the resource's seed and API inputs", async () => {
    const inputs = { browser: "firefox", url: "https://example.com/", __seed: SEED, readyTimeoutSeconds: 20 };
    const { outs } = await t.provider().create(inputs);
    const expected = generationKey({ seed: SEED, inputs });
    expect(outs.__idempotencyKey).toBe(expected);
    expect(t.emu.control.sessions()[0]!.idempotencyKey).toBe(expected);
  });

  it("polls the status until running, one create call and no more", async () => {
    // Preparation is held until the provider's third wait, so at least two polls see "starting".
    t.emu.control.preparation({ paused: true });
    let waits = 0;
    const sleep = async (ms: number) => {
      if (++waits === 3) t.emu.control.preparation({ paused: false });
      await new Promise((r) => setTimeout(r, ms));
    };
    const { outs } = await t.provider({ deps: { clock: { ...systemClock, sleep } } }).create({ browser: "brave", __seed: SEED });
    expect(outs.status).toBe("running");
    // The account is read before the create, for the session's owner fingerprint.
    const [account, ...log] = t.requests().map((r) => r.operation);
    expect(account).toBe("account");
    expect(log[0]).toBe("create");
    expect(log.filter((op) => op === "create")).toHaveLength(1);
    const polls = t.requests("status");
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(polls.every((r) => r.vmId === outs.vmId)).toBe(true);
  });
});

describe("create when the session cannot be handed over", () => {
  it("ends the session when preparation ends in error, and names it", async () => {
    t.emu.control.preparation({ failNext: 1 });
    const err = await thrown(() => t.provider().create({ browser: "chrome", __seed: SEED }));
    const [session] = t.emu.control.sessions();
    expect(err.code).toBe("preparation_failed");
    expect(err.vmId).toBe(session!.vmId);
    expect(err.message).toContain('preparation ended in state "error"; the session was ended');
    expect(t.requests("remove").map((r) => [r.vmId, r.status])).toEqual([[session!.vmId, "ok"]]);
    expect(t.emu.control.books().neverEnded).toBe(0);
  });

  it("ends the session when it is not running within readyTimeoutSeconds", async () => {
    t.emu.control.preparation({ paused: true });
    const clock = virtualClock();
    const provider = t.provider({ deps: { clock } });
    const err = await thrown(() => provider.create({ browser: "chrome", readyTimeoutSeconds: 0.2, __seed: SEED }));
    const [session] = t.emu.control.sessions();
    expect(err.code).toBe("not_running_in_time");
    expect(err.message).toContain(`session ${session!.vmId} was not running after 0.2 s (last state "starting"); raise readyTimeoutSeconds`);
    expect(session!.status).toMatch(/^(stopping|deleted)$/);
    expect(t.emu.control.books().neverEnded).toBe(0);
    // The provider waited the whole 0.2 s on its own clock, and not a moment longer.
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(200);
  });

  it("gives a session that queued for capacity longer than readyTimeoutSeconds its whole readyTimeoutSeconds to run", async () => {
    t.emu.control.settings({ runningLimit: 1 });
    const held = (await t.client().createSession({ browser: "edge" })).vmId;
    const clock = virtualClock();
    const started = clock.now();
    // The slot frees 40 s into the queue, past the 30 s readyTimeoutSeconds.
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      if (clock.now() - started >= 40_000 && t.emu.control.sessions().find((s) => s.vmId === held)!.status === "running") t.emu.control.endSession(held);
    };
    const provider = t.provider({ deps: { clock: { ...clock, sleep } } });
    const { id, outs } = await provider.create({ browser: "chrome", readyTimeoutSeconds: 30, waitForCapacitySeconds: 120, __seed: SEED });
    expect(clock.now() - started).toBeGreaterThanOrEqual(40_000);
    expect(outs).toMatchObject({ vmId: id, status: "running" });
    expect(t.requests("remove").map((r) => r.vmId)).not.toContain(id);
  });

  it("ends the session when requireLocation is set and no exit is free in the country", async () => {
    t.emu.control.settings({ locationCapacity: { de: 0 } });
    const err = await thrown(() => t.provider().create({ browser: "chrome", country: "de", requireLocation: true, __seed: SEED }));
    const [session] = t.emu.control.sessions();
    expect(err.code).toBe("location_not_applied");
    expect(err.vmId).toBe(session!.vmId);
    expect(err.message).toContain('no free exit in "de"');
    expect(session!.status).toMatch(/^(stopping|deleted)$/);
    expect(t.emu.control.books().neverEnded).toBe(0);
  });

  it("keeps the session on the default connection with a warning when requireLocation is not set", async () => {
    t.emu.control.settings({ locationCapacity: { de: 0 } });
    const { id, outs } = await t.provider().create({ browser: "chrome", country: "de", __seed: SEED });
    expect(outs).toMatchObject({ status: "running", locationApplied: false, locationReason: "unavailable" });
    expect(t.warnings).toHaveLength(1);
    expect(t.warnings[0]).toContain(id);
    expect(t.warnings[0]).toContain('no free exit in "de"');
    expect(t.warnings[0]).toContain("requireLocation");
    expect(t.requests("remove")).toHaveLength(0);
    expect(t.emu.control.books().running).toBe(1);
  });

  it("fails with the service's upgrade message at the running limit and starts nothing", async () => {
    t.emu.control.settings({ runningLimit: 1 });
    await t.client().createSession({ browser: "chrome" });
    const err = await thrown(() => t.provider().create({ browser: "chrome", __seed: SEED }));
    expect(err.message).toContain("(upgrade)");
    expect(err.message).toContain("running session limit reached (1 of 1)");
    expect(t.emu.control.books().started).toBe(1);
    // A refusal on the merits is not retried, even with the idempotency key.
    expect(t.requests("create")).toHaveLength(2);
  });

  it("hands the engine the id and the state without the share link when ending a failed session fails too", async () => {
    t.emu.control.preparation({ failNext: 1 });
    t.emu.control.fault({ operation: "remove", kind: "error", count: 50 });
    const inputs = { browser: "chrome", country: "uk", __seed: SEED, __provider: "stored-provider-text" };
    const err = await thrown(() => t.provider().create(inputs));
    const [session] = t.emu.control.sessions();
    expect(err.id).toBe(session!.vmId);
    expect(err.code).toBe("kept_in_stack");
    expect(err.id).toBe(session!.vmId);
    expect(err.message).toContain("injected fault");
    expect(err.message).toContain("kept in the stack");
    expect(err.properties).toMatchObject({ vmId: session!.vmId, browser: "chrome", country: "uk", apiVersion: "v8", __provider: "stored-provider-text" });
    expect(err.properties).not.toHaveProperty("shareUrl");
    expect(err.properties).not.toHaveProperty("shareUrlPath");
    expect(Object.values(err.properties).every((v) => v !== undefined)).toBe(true);
    // Every attempt of the client's retry policy was used before giving up.
    expect(t.requests("remove")).toHaveLength(5);
    expect(t.emu.control.books().neverEnded).toBe(0);
  });

  it("ends the session when its status cannot be read while it starts", async () => {
    t.emu.control.fault({ operation: "status", kind: "error", count: 50 });
    const err = await thrown(() => t.provider().create({ browser: "chrome", __seed: SEED }));
    const [session] = t.emu.control.sessions();
    expect(err.code).toBe("status_unreadable");
    expect(err.message).toContain(`waiting for session ${session!.vmId} to run failed`);
    expect(err.message).toContain("injected fault");
    expect(err.id).toBeUndefined();
    expect(t.requests("remove").map((r) => [r.vmId, r.status])).toEqual([[session!.vmId, "ok"]]);
    expect(t.emu.control.books().neverEnded).toBe(0);
  });

  it("hands the engine the id when neither the status nor the end call works, so nothing is orphaned", async () => {
    t.emu.control.fault({ operation: "status", kind: "error", count: 50 });
    t.emu.control.fault({ operation: "remove", kind: "error", count: 50 });
    const err = await thrown(() => t.provider().create({ browser: "chrome", __seed: SEED, __provider: "p" }));
    const [session] = t.emu.control.sessions();
    expect(err.id).toBe(session!.vmId);
    expect(err.properties).toMatchObject({ vmId: session!.vmId, __provider: "p", status: "unknown" });
    expect(err.properties).not.toHaveProperty("shareUrl");
    expect(err.message).toContain("kept in the stack");
  });

  it("leaves the session for the next update when the engine is gone by the time a status read fails", async () => {
    t.emu.control.fault({ operation: "status", kind: "error", count: 50 });
    // The engine dies while the status reads are failing: it was alive for the first poll only.
    const provider = t.provider({ deps: { engineAlive: () => t.requests("status").length === 0 } });
    const err = await thrown(() => provider.create({ browser: "chrome", __seed: SEED }));
    expect(err.message).toContain("injected fault");
    expect(t.requests("remove")).toHaveLength(0);
    expect(t.emu.control.books().neverEnded).toBe(1);
  });

  it("does not hand the share link to the engine when a timed-out session cannot be ended", async () => {
    t.emu.control.preparation({ paused: true });
    t.emu.control.fault({ operation: "remove", kind: "error", count: 50 });
    const clock = virtualClock();
    const provider = t.provider({ deps: { clock } });
    const err = await thrown(() => provider.create({ browser: "chrome", readyTimeoutSeconds: 0.1, __seed: SEED, __provider: "p" }));
    const [session] = t.emu.control.sessions();
    expect(err.id).toBe(session!.vmId);
    expect(err.properties).toMatchObject({ vmId: session!.vmId, __provider: "p", status: "unknown" });
    expect(JSON.stringify(err.properties)).not.toContain(session!.linkId);
    // The session is still starting: the engine keeps it, so a later destroy can end it.
    expect(t.emu.control.books().neverEnded).toBe(1);
  });
});
