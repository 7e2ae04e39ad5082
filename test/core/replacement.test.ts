import { describe, expect, it } from "vitest";
import { BrowserSessionAdapter } from "../../plugin/resource";
import { thrown, useEmulator, virtualClock } from "../helpers/emulator";

/**
 * A replacement under the engine, as one provider process sees it: the engine shows the recorded session
 * (a diff or a refresh of it), then asks for a create with the same inputs -- the idempotency key of the
 * session being replaced -- and, create-before-delete, deletes the old session only after. A running limit
 * of 1 leaves no room for two sessions at once.
 */
const t = useEmulator({ runningLimit: 1 });

const INPUTS = { browser: "firefox", url: "https://example.com/review", shareLanguage: "de", __seed: "review/pr-9/app" };

describe("a replacement with the inputs of the session it replaces", () => {
  it("starts a new session, never the one it replaces: the limit of 1 ends the old one first, saying so, and the engine's delete of it afterwards succeeds", async () => {
    const first = await t.provider().create({ ...INPUTS });
    // The next update's provider process: the engine diffs the recorded session (no change; a --replace or
    // a replaceOnChanges on an in-place input), then creates its replacement before deleting it.
    const provider = t.provider();
    const outs = first.outs as unknown as Record<string, unknown>;
    expect(provider.diff(first.id, outs, { ...INPUTS }).deleteBeforeReplace).toBe(true);
    const second = await provider.create({ ...INPUTS });
    expect(second.id).not.toBe(first.id);
    expect(second.outs.status).toBe("running");
    expect(t.warnings.join("\n")).toContain(`no room for the replacement beside session ${first.id}, so that session was ended first`);
    await provider.delete(first.id, outs);
    const status = (id: string) => t.emu.control.sessions().find((s) => s.vmId === id)!.status;
    expect(status(first.id)).toMatch(/^(stopping|deleted)$/);
    expect(status(second.id)).toBe("running");
    expect(t.emu.control.books().started).toBe(2);
  });

  it("with a capacity wait, ends the old session only once the wait has given up, and gives the replacement a fresh wait", async () => {
    const first = await t.provider().create({ ...INPUTS });
    const clock = virtualClock();
    const provider = t.provider({ deps: { clock } });
    const outs = first.outs as unknown as Record<string, unknown>;
    provider.diff(first.id, outs, { ...INPUTS });
    t.emu.control.clearRequests();
    const second = await provider.create({ ...INPUTS, waitForCapacitySeconds: 3 });
    expect(second.id).not.toBe(first.id);
    expect(second.outs.status).toBe("running");
    // The replacement's key (one step after the session it replaces, which the diff showed) is refused and
    // waits its 3 s out (growing, jittered pauses, the meter read after each refusal); only then is the
    // meter read once more, the old session ended, and the key's create tried again, with a capacity wait of
    // its own. The old key is not asked again.
    const calls = t
      .requests()
      .filter((r) => r.operation === "create" || r.operation === "quota" || r.operation === "remove")
      .map((r) => `${r.operation} ${r.status}`);
    expect(calls).toEqual([...Array.from({ length: 4 }, () => ["create upgrade", "quota ok"]).flat(), "quota ok", "remove ok", "create ok"]);
    expect(clock.slept.slice(0, 3)).toEqual([375, 563, 844]);
    expect(t.warnings).toEqual([
      `BrowserSession: the account's running limit is reached (1 of 1); waiting up to 3 s for a free slot`,
      `BrowserSession: the account's running limit (1) leaves no room for the replacement beside session ${first.id}, ` +
        "so that session was ended first, as deleteBeforeReplace does; its link is down until the replacement runs",
    ]);
    expect(t.emu.control.books().started).toBe(2);
  });

  it("with room for both, starts the replacement beside the running old session, which the engine's delete then ends", async () => {
    t.emu.control.settings({ runningLimit: 2 });
    const first = await t.provider().create({ ...INPUTS });
    const provider = t.provider();
    const outs = first.outs as unknown as Record<string, unknown>;
    await provider.read(first.id, outs); // a refresh shows the recorded session as well
    const second = await provider.create({ ...INPUTS });
    expect(second.id).not.toBe(first.id);
    expect(t.emu.control.sessions().find((s) => s.vmId === first.id)!.status).toBe("running");
    await provider.delete(first.id, outs);
    expect(t.emu.control.books()).toMatchObject({ started: 2, running: 1 });
  });

  it("a replacement the engine makes without showing the provider the old session: the delete keeps the session its create was handed, and says why", async () => {
    const first = await t.provider().create({ ...INPUTS });
    t.emu.control.setCreated(first.id, new Date(Date.now() - 10_000).toISOString()); // started by an earlier run
    const provider = t.provider();
    const second = await provider.create({ ...INPUTS });
    expect(second.id).toBe(first.id);
    await provider.delete(first.id, first.outs as unknown as Record<string, unknown>);
    expect(t.emu.control.sessions().find((s) => s.vmId === first.id)!.status).toBe("running");
    expect(t.warnings.join("\n")).toMatch(new RegExp(`session ${first.id} was not replaced: .*set the resource option deleteBeforeReplace: true, or run the same command with --refresh`));
  });
});

describe("shareLanguage", () => {
  it("changes in place: the same session, both links' locale segment rewritten, no call to the service, and the rewritten link opens the session", async () => {
    const { id, outs } = await t.provider().create({ ...INPUTS });
    const recorded = outs as unknown as Record<string, string>;
    expect(recorded.shareUrlPath).toMatch(/^\/de\/s\?/);
    const provider = t.provider();
    expect(provider.diff(id, recorded, { ...INPUTS, shareLanguage: "ja" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: true });
    t.emu.control.clearRequests();
    const { outs: updated } = provider.update(id, recorded, { ...INPUTS, shareLanguage: "ja" });
    expect(t.requests()).toHaveLength(0);
    expect(updated).toMatchObject({ shareLanguage: "ja", shareUrl: recorded.shareUrl!.replace("/de/s?", "/ja/s?"), shareUrlPath: recorded.shareUrlPath!.replace("/de/s?", "/ja/s?") });
    const page = await fetch(updated.shareUrl as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('lang="ja"');
    // Without a shareLanguage the service's default, en.
    const { shareLanguage: _s, ...withoutLanguage } = INPUTS;
    expect(provider.update(id, recorded, withoutLanguage).outs.shareUrlPath).toBe(recorded.shareUrlPath!.replace("/de/s?", "/en/s?"));
  });
});

describe("customTimeouts.delete", () => {
  it("bounds destroy: a remove that outlasts it fails naming the session and what to do, and the session stays in the stack", async () => {
    const provider = t.provider();
    const { id, outs } = await provider.create({ ...INPUTS });
    const native = new BrowserSessionAdapter(provider.ctx);
    t.emu.control.fault({ operation: "remove", kind: "delay_before", delayMs: 5_000, count: 5 });
    const started = Date.now();
    const err = await thrown(() => native.delete({ id, props: outs as unknown as Record<string, unknown>, engineTimeoutSeconds: 1 }));
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(err.message).toContain(`ending session ${id} did not finish within the resource's customTimeouts.delete (1 s), so it stays in the stack`);
    expect(err.message).toContain("run `pulumi destroy` again");
    expect((err as { code?: string }).code).toBe("kept_in_stack");
  });
});

describe("a replacement served by the process of the provider's changed settings, which the engine showed nothing of the session", () => {
  // `--replace` in the update that changes a provider setting: the engine reads the session in the process
  // of the recorded settings, then creates its replacement in the process it configured with the new ones.
  const URN = "urn:pulumi:dev::review::remote-browser:index:BrowserSession::app";
  const NEWS = { browser: "firefox", url: "https://example.com/review" };
  /** The plugin's adapter of a process configured as the engine configures it. */
  const adapter = (settingsChanged: boolean) => {
    const native = new BrowserSessionAdapter(t.provider().ctx);
    native.configured({ keyInPlainConfig: false, stackIdentity: "stack-7f3a", settingsChanged });
    return native;
  };
  const status = (id: string) => t.emu.control.sessions().find((s) => s.vmId === id)!.status;
  /** The recorded session, started by an update before this one. */
  const recorded = async () => {
    const first = await adapter(false).create({ urn: URN, news: { ...NEWS } });
    t.emu.control.setCreated(first.id, new Date(Date.now() - 10_000).toISOString());
    return first;
  };

  it("takes the running session its key answers with for the one it replaces: a new session runs, the old one is ended once it does, saying why, and the engine's delete of it succeeds", async () => {
    t.emu.control.settings({ runningLimit: 2 });
    const first = await recorded();
    const native = adapter(true);
    const second = await native.create({ urn: URN, news: { ...NEWS } });
    expect(second.id).not.toBe(first.id);
    expect(status(second.id)).toBe("running");
    expect(status(first.id)).toMatch(/^(stopping|deleted)$/);
    expect(t.warnings.join("\n")).toContain(`session ${first.id}, which this resource's idempotency key answered with, was taken for the session being replaced`);
    expect(t.warnings.join("\n")).toContain(`It was ended once its replacement ${second.id} ran`);
    await native.delete({ id: first.id, props: first.outs, urn: URN });
    expect(t.warnings.join("\n")).not.toContain("was not replaced");
    expect(t.emu.control.books()).toMatchObject({ started: 2, running: 1 });
  });

  it("on a running limit of 1, ends the old session first, saying so, and starts the replacement", async () => {
    const first = await recorded();
    const second = await adapter(true).create({ urn: URN, news: { ...NEWS } });
    expect(second.id).not.toBe(first.id);
    expect(status(second.id)).toBe("running");
    expect(t.warnings.join("\n")).toContain(`no room for the replacement beside session ${first.id}, so that session was ended first`);
    expect(t.emu.control.books()).toMatchObject({ started: 2, running: 1 });
  });

  it("after a replacement for changed inputs (which starts at its own inputs' first key), finds the recorded session all the same, on a running limit of 1", async () => {
    const first = await recorded();
    // An earlier update replaced it for a new url: its diff showed the provider the old session.
    const changed = { ...NEWS, url: "https://example.com/review-2" };
    const earlier = adapter(false);
    earlier.diff({ id: first.id, urn: URN, olds: first.outs, news: { ...changed }, oldInputs: { ...NEWS } });
    const second = await earlier.create({ urn: URN, news: { ...changed } });
    await earlier.delete({ id: first.id, props: first.outs, urn: URN });
    t.emu.control.setCreated(second.id, new Date(Date.now() - 10_000).toISOString());
    const third = await adapter(true).create({ urn: URN, news: { ...changed } });
    expect([first.id, second.id]).not.toContain(third.id);
    expect(status(third.id)).toBe("running");
    expect(t.warnings.join("\n")).toContain(`no room for the replacement beside session ${second.id}, so that session was ended first`);
    expect(t.emu.control.books()).toMatchObject({ started: 3, running: 1 });
  });

  it("in a process whose settings did not change, the same answer is a session an interrupted update started: handed over, as before", async () => {
    const first = await recorded();
    const second = await adapter(false).create({ urn: URN, news: { ...NEWS } });
    expect(second.id).toBe(first.id);
    expect(t.emu.control.books()).toMatchObject({ started: 1, running: 1 });
  });

  it("a session its own first attempt started, named by the answer to a retry after a lost answer, is its own: one session, not a replacement", async () => {
    t.emu.control.fault({ operation: "create", kind: "reset_after", count: 1 });
    // The retry is answered 2.5 s later: by the service's clock the session was started well before that answer.
    t.emu.control.fault({ operation: "create", kind: "delay_before", delayMs: 2_500, count: 1 });
    const native = adapter(true);
    const created = await native.create({ urn: URN, news: { ...NEWS } });
    expect(status(created.id)).toBe("running");
    expect(t.emu.control.books()).toMatchObject({ started: 1, running: 1 });
    expect(t.warnings.join("\n")).not.toContain("was taken for the session being replaced");
  });
});
