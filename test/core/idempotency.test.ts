import { describe, expect, it } from "vitest";
import { canonicalApiInputs, generationKey, keyAfter, resourceSeed } from "../../core/launch";
import { eventually, thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

const SEED = "review/pr-7/app";
const INPUTS = { browser: "chrome", url: "https://example.com/pr-7", country: "us", __seed: SEED };

/** Moves a session's start 10 s into the past: it is then plainly older than a create sent now. */
function ageSession(vmId: string): void {
  t.emu.control.setCreated(vmId, new Date(Date.now() - 10_000).toISOString());
}

describe("idempotency keys (launch.ts)", () => {
  it("derives the same key for the same seed and API inputs", () => {
    expect(generationKey({ seed: SEED, inputs: { ...INPUTS } })).toBe(generationKey({ seed: SEED, inputs: { ...INPUTS } }));
    // Key order and provider-only inputs do not matter: only what is sent to the service does.
    const reordered = { __seed: SEED, country: "us", url: "https://example.com/pr-7", browser: "chrome", readyTimeoutSeconds: 9 };
    expect(generationKey({ seed: SEED, inputs: reordered })).toBe(generationKey({ seed: SEED, inputs: INPUTS }));
  });

  it("derives a different key for other inputs, another resource or another previous generation", () => {
    const key = generationKey({ seed: SEED, inputs: INPUTS });
    expect(generationKey({ seed: SEED, inputs: { ...INPUTS, url: "https://example.com/pr-8" } })).not.toBe(key);
    expect(generationKey({ seed: SEED, inputs: { ...INPUTS, country: "de" } })).not.toBe(key);
    expect(generationKey({ seed: "review/pr-7/other", inputs: INPUTS })).not.toBe(key);
    expect(generationKey({ seed: SEED, previousKey: "prb-previous", inputs: INPUTS })).not.toBe(key);
  });

  it("draws a fresh key when the resource has no seed", () => {
    expect(generationKey({ inputs: INPUTS })).not.toBe(generationKey({ inputs: INPUTS }));
  });

  it("keeps keys within the service's 128 characters", () => {
    const key = generationKey({ seed: SEED, inputs: { ...INPUTS, url: "x".repeat(10_000) } });
    expect(key).toMatch(/^prb-[0-9a-f]{48}$/);
    expect(keyAfter(key, "vm-3")).toMatch(/^prb-[0-9a-f]{48}$/);
  });

  it("steps to the next key by the session the key answered with, deterministically", () => {
    const key = generationKey({ seed: SEED, inputs: INPUTS });
    expect(keyAfter(key, "vm-1")).toBe(keyAfter(key, "vm-1"));
    expect(new Set([key, ...["vm-1", "vm-2", "vm-3"].map((v) => keyAfter(key, v))]).size).toBe(4);
  });

  it("seeds with the stack's identity and the resource's, and with the resource's alone where no stack identity is known", () => {
    const urn = "urn:pulumi:dev::review::acme:review:Desktop$remote-browser:index:BrowserSession::session";
    expect(resourceSeed(undefined, urn)).toBe(urn);
    expect(resourceSeed("stack-a", urn)).not.toBe(resourceSeed("stack-b", urn));
    expect(generationKey({ seed: resourceSeed("stack-a", urn), inputs: INPUTS })).not.toBe(generationKey({ seed: resourceSeed("stack-b", urn), inputs: INPUTS }));
  });

  it("canonicalises only the API inputs, leaving out null and undefined", () => {
    expect(canonicalApiInputs({ browser: "chrome", url: null, layout: undefined, __seed: "s", requireLocation: true })).toBe('{"browser":"chrome"}');
  });
});

describe("create after an interrupted update", () => {
  it("leaves the session alone when the engine went away, and the next create adopts it", async () => {
    // The engine is "killed" right after the create call reached the service.
    const killed = t.provider({ deps: { engineAlive: () => t.emu.control.books().createCalls === 0 } });
    const err = await thrown(() => killed.create({ ...INPUTS }));
    const [session] = t.emu.control.sessions();
    expect(err.code).toBe("engine_gone");
    expect(err.message).toContain(`engine went away while session ${session!.vmId} was starting`);
    expect(t.requests("remove")).toHaveLength(0);
    await eventually(() => t.emu.control.sessions()[0]!.status === "running");

    const { id, outs } = await t.provider().create({ ...INPUTS });
    expect(id).toBe(session!.vmId);
    expect(outs.status).toBe("running");
    const books = t.emu.control.books();
    expect(books.started).toBe(1);
    expect(books.idempotentReplays).toBeGreaterThanOrEqual(1);
    expect(books.running).toBe(1);
    expect(t.requests("remove")).toHaveLength(0);
  });

  it("adopts a session the first attempt left still starting", async () => {
    t.emu.control.preparation({ paused: true });
    const killed = t.provider({ deps: { engineAlive: () => t.emu.control.books().createCalls === 0 } });
    await thrown(() => killed.create({ ...INPUTS }));
    const [session] = t.emu.control.sessions();
    expect(session!.status).toBe("starting");

    t.emu.control.preparation({ paused: false });
    const { id } = await t.provider().create({ ...INPUTS });
    expect(id).toBe(session!.vmId);
    expect(t.emu.control.books().started).toBe(1);
  });
});

describe("create again after the resource's earlier session ended", () => {
  it("moves to the next key and starts a new session when the key's session has ended", async () => {
    const provider = t.provider();
    const first = await provider.create({ ...INPUTS });
    await provider.delete(first.id, first.outs as unknown as Record<string, unknown>);
    ageSession(first.id);

    // The next update's process, which was not shown the ended session.
    const second = await t.provider().create({ ...INPUTS });
    expect(second.id).not.toBe(first.id);
    expect(second.outs.status).toBe("running");
    expect(second.outs.__idempotencyKey).toBe(keyAfter(first.outs.__idempotencyKey!, first.id));
    const books = t.emu.control.books();
    expect(books.started).toBe(2);
    expect(books.idempotentReplays).toBe(1);
    expect(books.running).toBe(1);
    // The old key was asked once more (answered from the service's memory), the new one once.
    expect(t.requests("create")).toHaveLength(3);
    expect(t.emu.control.sessions().find((s) => s.vmId === first.id)!.status).toMatch(/^(stopping|deleted)$/);
  });

  it("starts a new session when the stack is brought up again right after a destroy", async () => {
    const provider = t.provider();
    const first = await provider.create({ ...INPUTS });
    await provider.delete(first.id, first.outs as unknown as Record<string, unknown>);
    // No ageing: the ended session is only milliseconds old, and still it is not taken for the new one.
    const second = await provider.create({ ...INPUTS });
    expect(second.id).not.toBe(first.id);
    expect(second.outs.status).toBe("running");
    expect(t.emu.control.books().started).toBe(2);
    expect(t.emu.control.books().neverEnded).toBe(1);
  });

  it("skips every ended generation of the chain, up to the first fresh key", async () => {
    const provider = t.provider();
    const ended: string[] = [];
    for (let generation = 1; generation <= 2; generation++) {
      // Each generation's own process: none was shown the other's session.
      const { id, outs } = await t.provider().create({ ...INPUTS });
      await t.provider().delete(id, outs as unknown as Record<string, unknown>);
      ageSession(id);
      ended.push(id);
    }
    const third = await provider.create({ ...INPUTS });
    expect(third.outs.__idempotencyKey).toBe(keyAfter(generationKey({ seed: SEED, inputs: INPUTS }), ended[1]!));
    expect(t.emu.control.books().started).toBe(3);
    expect(t.emu.control.books().neverEnded).toBe(1);
  });

  it("asks for a new idempotencyKey when the user's key belongs to a session that has ended", async () => {
    const provider = t.provider();
    const inputs = { ...INPUTS, idempotencyKey: "release-2025-01" };
    const first = await provider.create(inputs);
    await provider.delete(first.id, first.outs as unknown as Record<string, unknown>);
    ageSession(first.id);

    const err = await thrown(() => provider.create(inputs));
    expect(err.code).toBe("stale_idempotency_key");
    expect(err.vmId).toBe(first.id);
    expect(err.message).toContain('idempotencyKey "release-2025-01" belongs to session');
    expect(err.message).toContain("set a new idempotencyKey");
    expect(t.emu.control.books().started).toBe(1);
    expect(t.emu.control.books().neverEnded).toBe(0);
  });
});

describe("idempotency keys keyed by the stack's secret (remote-browser:idempotencySecret)", () => {
  const SECRET = "0123456789abcdef0123456789abcdef";

  it("cannot be computed from the project, stack, name and inputs alone", () => {
    const plain = generationKey({ seed: SEED, inputs: INPUTS });
    const keyed = generationKey({ seed: SEED, inputs: INPUTS, stackSecret: SECRET });
    expect(keyed).toMatch(/^prb-[0-9a-f]{48}$/);
    expect(keyed).not.toBe(plain);
    expect(generationKey({ seed: SEED, inputs: INPUTS, stackSecret: `${SECRET}x` })).not.toBe(keyed);
    // Stable: the run after a killed update derives the same key.
    expect(generationKey({ seed: SEED, inputs: { ...INPUTS }, stackSecret: SECRET })).toBe(keyed);
  });

  it("is used by create, so another program with the same API key replaying the plain key gets no session of this stack", async () => {
    const settings = { idempotencySecret: SECRET };
    const { outs } = await t.provider({ settings }).create({ ...INPUTS });
    const keyed = generationKey({ seed: SEED, inputs: INPUTS, stackSecret: SECRET });
    expect(outs.__idempotencyKey).toBe(keyed);
    // Another stack's program, same key and same seed and inputs, but not the secret: a session of its own.
    const other = await t.provider().create({ ...INPUTS });
    expect(other.outs.vmId).not.toBe(outs.vmId);
    expect(other.outs.shareUrl).not.toBe(outs.shareUrl);
  });

  it("still adopts the session of an interrupted update", async () => {
    const settings = { idempotencySecret: SECRET };
    const killed = t.provider({ settings, deps: { engineAlive: () => t.emu.control.books().createCalls === 0 } });
    const err = await thrown(() => killed.create({ ...INPUTS }));
    expect(err.code).toBe("engine_gone");
    const [session] = t.emu.control.sessions();
    const { outs } = await t.provider({ settings }).create({ ...INPUTS });
    expect(outs.vmId).toBe(session!.vmId);
    expect(t.emu.control.books().started).toBe(1);
  });

  it("must be long enough to be a secret", async () => {
    const err = await thrown(() => t.provider({ settings: { idempotencySecret: "short" } }));
    expect(err.code).toBe("configuration");
    expect(err.message).toContain("remote-browser:idempotencySecret must be at least 16 characters");
  });
});
