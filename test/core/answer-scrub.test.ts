import type { Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { imagesResult, sessionsResult } from "../../core/dataSources";
import { type Rewrite, startEchoingProxy } from "../helpers/echoing-proxy";
import { thrown, useEmulator } from "../helpers/emulator";

/**
 * Successful answers whose text repeats what the request presented, as a service or a proxy before it may:
 * the API key raw, as `Bearer …`, URL-encoded and JSON-escaped, and the create's idempotency key. Every
 * piece of it is scrubbed before it becomes a warning, an error, an output or the state.
 */
const t = useEmulator({ prepMs: 40 });
const KEY = 'rb_test_key+with/odd"q\\s';

let proxy: Server | undefined;
afterEach(() => proxy?.close());

/** A proxy before the emulator that rewrites every successful answer with `rewrite`; its v8 base URL. */
async function echoingProxy(rewrite: Rewrite): Promise<string> {
  const started = await startEchoingProxy(t.emu.apiBaseUrl, rewrite);
  proxy = started.server;
  return started.baseUrl;
}

/** What the proxy repeats: the credentials as presented, and the key in its other spellings, and the idempotency key. */
const echo = (presented: string, body: Record<string, unknown> = {}) =>
  `${presented}; key=${encodeURIComponent(KEY)}; json=${JSON.stringify(KEY).slice(1, -1)}; idem=${String(body.idempotencyKey ?? "")}`;

function expectClean(...texts: unknown[]) {
  // The create's own record of its idempotency key (a secret output) is not service text.
  const all = JSON.stringify(texts, (k, v) => (k === "__idempotencyKey" ? undefined : v));
  for (const spelling of [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)]) expect(all.includes(spelling), `${spelling} in ${all}`).toBe(false);
  expect(all).not.toMatch(/prb-[0-9a-f]{48}/);
  expect(all).not.toMatch(/Bearer (?!\[redacted\])/);
}

function providerVia(baseUrl: string) {
  t.emu.control.addAccount({ apiKey: KEY, contact: "echo@example.test" });
  return t.provider({ apiKey: KEY, baseUrl });
}

describe("service text in successful answers", () => {
  it("keeps what addresses a session byte for byte, whatever it holds: a changed vmId could no longer end it", async () => {
    // A user's idempotency key that happens to be part of the session's id and share link.
    const base = await echoingProxy((answer, { path }) => {
      if (path.startsWith("/v8/vm/create")) Object.assign(answer, { vmId: `${answer.vmId}-release1`, shareUrl: `${answer.shareUrl}release1` });
    });
    const client = t.client({ baseUrl: base });
    const answer = await client.createSession({ browser: "chrome", idempotencyKey: "release1" });
    expect(answer.vmId).toMatch(/^vm-\w+-release1$/);
    expect(answer.shareUrl).toMatch(/release1$/);
  });

  it("location_reason of the create answer: scrubbed in the warning and the locationReason output", async () => {
    const base = await echoingProxy((answer, { path, presented, body }) => {
      if (path.startsWith("/v8/vm/create")) answer.location_reason = `unavailable (${echo(presented, body)})`;
      // The status entries say nothing of the location, so the create answer's reason is the one used.
      for (const e of answer.data ?? []) {
        delete e.location_applied;
        delete e.location_reason;
      }
    });
    const provider = providerVia(base);
    t.emu.control.settings({ locationCapacity: { de: 0 } });
    const { outs } = await provider.create({ browser: "chrome", country: "de", __seed: "p/s/create-reason" });
    expect(String(outs.locationReason)).toMatch(/^unavailable \(Bearer \[redacted\]; key=\[redacted\]; json=\[redacted\]; idem=\[redacted\]\)$/);
    expect(t.warnings.join("\n")).toContain("Bearer [redacted]");
    expectClean(outs, t.warnings);
  });

  it("location_reason of the status answer: scrubbed in the warning, the output and a refresh's output", async () => {
    const base = await echoingProxy((answer, { presented }) => {
      // With a derived idempotency key of another request: one is recognised by its shape alone.
      for (const e of answer.data ?? []) if (e.location_reason) e.location_reason = `unavailable (${echo(presented)}; prb-${"ab".repeat(24)})`;
    });
    const provider = providerVia(base);
    t.emu.control.settings({ locationCapacity: { de: 0 } });
    const { id, outs } = await provider.create({ browser: "chrome", country: "de", __seed: "p/s/status-reason" });
    expect(String(outs.locationReason)).toContain("Bearer [redacted]");
    const refreshed = await provider.read(id, outs as unknown as Record<string, unknown>);
    expect(String(refreshed.props?.locationReason)).toContain("key=[redacted]");
    expectClean(outs, refreshed, t.warnings);
  });

  it("a state the spec does not name: scrubbed in the error that names the last state, and in the outputs", async () => {
    let unnamed = true;
    const base = await echoingProxy((answer, { presented }) => {
      for (const e of answer.data ?? []) if (unnamed) e.status = `provisioning for ${echo(presented)}`;
    });
    const provider = providerVia(base);
    t.emu.control.preparation({ paused: true });
    const err = await thrown(() => provider.create({ browser: "chrome", readyTimeoutSeconds: 1, __seed: "p/s/unnamed" }));
    expect(err.message).toMatch(/last state "provisioning for Bearer \[redacted\]/);
    expectClean(err.message, t.warnings);
    // A refresh of a running session whose state the service names so: its status output is scrubbed too.
    t.emu.control.preparation({ paused: false });
    unnamed = false;
    const { id, outs } = await provider.create({ browser: "chrome", __seed: "p/s/unnamed-2" });
    unnamed = true;
    const refreshed = await provider.read(id, outs as unknown as Record<string, unknown>);
    expect(String(refreshed.props?.status)).toMatch(/^provisioning for Bearer \[redacted\]/);
    expectClean(refreshed);
  });

  it("an image's name and a listed session's name: scrubbed in the data sources' answers", async () => {
    const base = await echoingProxy((answer) => {
      for (const i of answer.images ?? []) i.name = `${i.name} (${echo(`Bearer ${KEY}`)})`;
      for (const e of answer.data ?? []) e.name = `${e.name} (${echo(`Bearer ${KEY}`)})`;
    });
    const provider = providerVia(base);
    await t.client({ apiKey: KEY }).createSession({ browser: "chrome" });
    const images = imagesResult(await provider.ctx.api().images());
    expect(images.images[0]!.name).toMatch(/\(Bearer \[redacted\]; key=\[redacted\]/);
    const listed = await sessionsResult(provider.ctx.api(), {});
    expect(listed.sessions[0]!.browserName).toMatch(/\(Bearer \[redacted\]/);
    expectClean(images, listed);
  });
});
