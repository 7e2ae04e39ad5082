import { describe, expect, it } from "vitest";
import { pulumiModules } from "../../engine-conventions/sdkInternals";
import { nativeHandlers } from "../../plugin/handlers";
import { BrowserSessionAdapter } from "../../plugin/resource";
import { BROWSER_SESSION } from "../../plugin/identity";
import type { NativeCall } from "../../plugin/rpc";
import { isSecret, reveal, secret } from "../../engine-conventions/wire";
import { INPUTS, UNKNOWN } from "../../core/declaration";
import { virtualClock, thrown, useEmulator } from "../helpers/emulator";

/**
 * BrowserSession as the plugin serves it, against the emulator: the core's behaviour, with what this front
 * door adds -- secrets in the engine's envelope, the URN as the resource's identity, the engine's create
 * time-out, and a read by id alone as an import.
 */
const t = useEmulator();
const URN = "urn:pulumi:pr-7::review::remote-browser:index:BrowserSession::app";
const native = (setup?: Parameters<typeof t.provider>[0]) => new BrowserSessionAdapter(t.provider(setup).ctx);

describe("create", () => {
  it("keeps the share link secret, and every output whose input was secret", async () => {
    const { id, outs } = await native().create({ urn: URN, news: { browser: "chrome", url: secret("https://example.com/private") } });
    const [session] = t.emu.control.sessions();
    expect(id).toBe(session!.vmId);
    expect(session!.url).toBe("https://example.com/private");
    for (const name of ["shareUrl", "shareUrlPath", "url"]) expect(isSecret(outs[name]), name).toBe(true);
    expect(reveal(outs.shareUrl)).toContain(session!.linkId);
    for (const name of ["vmId", "status", "browser", "owner", "apiVersion"]) expect(isSecret(outs[name]), name).toBe(false);
    expect(outs).toMatchObject({ vmId: id, status: "running", browser: "chrome", apiVersion: "v8" });
  });

  it("records none of the dynamic resource's bookkeeping: no seed, URN or idempotency key in the state", async () => {
    const { outs } = await native().create({ urn: URN, news: { browser: "chrome" } });
    for (const name of ["__seed", "__urn", "__idempotencyKey", "__adoptVmId"]) expect(outs).not.toHaveProperty(name);
  });

  it("derives its idempotency key from the URN: a second create of the same resource adopts the first session", async () => {
    const first = await native().create({ urn: URN, news: { browser: "chrome" } });
    const again = await native().create({ urn: URN, news: { browser: "chrome" } });
    const other = await native().create({ urn: URN.replace("::app", "::other"), news: { browser: "chrome" } });
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    expect(t.emu.control.books().started).toBe(2);
    const keys = t.emu.control.sessions().map((s) => s.idempotencyKey);
    expect(keys.every((k) => typeof k === "string" && k.startsWith("prb-"))).toBe(true);
  });

  it("gives up at the engine's customTimeouts.create when it is shorter than readyTimeoutSeconds, naming it, and ends the session", async () => {
    t.emu.control.preparation({ paused: true });
    const clock = virtualClock();
    const err = await thrown(() => native({ deps: { clock } }).create({ urn: URN, news: { browser: "chrome", readyTimeoutSeconds: 300 }, engineTimeoutSeconds: 2 }));
    expect(err.code).toBe("not_running_in_time");
    expect(err.message).toMatch(/was not running after 2 s .*customTimeouts\.create is shorter than readyTimeoutSeconds.*the session was ended/);
    expect(t.emu.control.books()).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
    // It waited the engine's 2 s, not readyTimeoutSeconds' 300.
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2_000);
  });

  it("keeps readyTimeoutSeconds when it is the shorter one", async () => {
    t.emu.control.preparation({ paused: true });
    const err = await thrown(() => native({ deps: { clock: virtualClock() } }).create({ urn: URN, news: { browser: "chrome", readyTimeoutSeconds: 1 }, engineTimeoutSeconds: 60 }));
    expect(err.message).toMatch(/was not running after 1 s .*raise readyTimeoutSeconds/);
  });

  it("hands back the session's outputs without the share link when it cannot end a session it gave up on", async () => {
    t.emu.control.preparation({ paused: true });
    t.emu.control.fault({ operation: "remove", kind: "error", count: 100 });
    const err = await thrown(() => native({ deps: { clock: virtualClock() } }).create({ urn: URN, news: { browser: "chrome", url: secret("https://example.com/p") }, engineTimeoutSeconds: 1 }));
    expect(err.code).toBe("kept_in_stack");
    expect(err.id).toBe(t.emu.control.sessions()[0]!.vmId);
    expect(err.properties).not.toHaveProperty("shareUrl");
    expect(err.properties).not.toHaveProperty("__seed");
    expect(isSecret(err.properties.url)).toBe(true);
  });
});

describe("read", () => {
  it("by id alone (an import) gives the running session's state and its browser as the one input, without a share link", async () => {
    const vmId = (await t.client().createSession({ browser: "firefox" })).vmId;
    t.emu.control.preparation({ paused: false });
    const read = await native().read({ id: vmId, props: {}, inputs: {} });
    expect(read.id).toBe(vmId);
    expect(read.inputs).toEqual({ browser: "firefox" });
    expect(read.props).toMatchObject({ vmId, browser: "firefox", browserName: "Mozilla Firefox", apiVersion: "v8" });
    expect(read.props).not.toHaveProperty("shareUrl");
    expect(read.props.owner).toMatch(/^acct2-/);
  });

  it("by id alone marks every input but the browser unconfirmed and warns, naming the service's inputs it cannot confirm", async () => {
    const vmId = (await t.client().createSession({ browser: "firefox", url: "https://started.example.com/" })).vmId;
    const read = await native().read({ id: vmId, props: {}, inputs: {}, urn: URN });
    expect(read.props.unconfirmedInputs).toEqual(Object.keys(INPUTS).filter((k) => k !== "browser"));
    expect(t.warnedOn).toEqual([{ urn: URN, message: expect.stringContaining(`BrowserSession ${vmId}, taken in by its id`) }]);
    expect(t.warnedOn[0]!.message).toContain("(url, language, layout, country, egress, shareLanguage, callbackUrl, idempotencyKey)");
  });

  it("by id alone fails, naming the cause in the user's words, for a session the account does not know or that has ended", async () => {
    const unknown = await thrown(() => native().read({ id: "vm-0000000000000000deadbeef", props: {}, inputs: {} }));
    expect(unknown.message).toBe(
      "reading session vm-0000000000000000deadbeef by its id (pulumi import, or a get): the service knows no such session of the account " +
        "whose key is configured; check the id, and that the key is the one of the account that started the session",
    );
    // The account's fingerprint is no help to the user here.
    expect(unknown.message).not.toMatch(/acct2-/);
    const vmId = (await t.client().createSession({ browser: "chrome" })).vmId;
    t.emu.control.endSession(vmId);
    const ended = await thrown(() => native().read({ id: vmId, props: {}, inputs: {} }));
    expect(ended.code).toBe("import_failed");
    expect(ended.message).toBe(`reading session ${vmId} by its id (pulumi import, or a get): the session has ended (state "deleted"), so there is nothing to take into the stack`);
    expect(ended.message).not.toMatch(/^importing/);
  });

  it("by id alone is refused when the key came as plain stack config (an import would record it in clear text), naming the fix", async () => {
    const vmId = (await t.client().createSession({ browser: "chrome" })).vmId;
    const sessions = native();
    sessions.configured({ keyInPlainConfig: true });
    const err = await thrown(() => sessions.read({ id: vmId, props: {}, inputs: {} }));
    expect(err.message).toMatch(/remote-browser:apiKey is plain stack config .*`pulumi config set --secret remote-browser:apiKey`.*then import again/);
  });

  it("bounds the id of a read or a delete and never repeats a long one", async () => {
    const huge = `vm-${"x".repeat(1024 * 1024)}`;
    for (const attempt of [
      () => native().read({ id: huge, props: {}, inputs: {} }),
      () => native().read({ id: huge, props: { vmId: huge, owner: "o" }, inputs: { browser: "chrome" } }),
      () => native().delete({ id: huge, props: { vmId: huge } }),
    ]) {
      const err = await thrown(attempt);
      expect(err.code).toBe("validation");
      expect(err.message).toMatch(/the session id is 1048579 characters long, not a session id \(at most 256\)/);
      expect(err.message.length).toBeLessThan(300);
    }
    expect(t.emu.control.books().removeCalls).toBe(0);
  });

  it("refuses a masked id for a read by id, a refresh or a delete before any call, saying what a masked id is", async () => {
    const vmId = (await t.client().createSession({ browser: "chrome" })).vmId;
    t.emu.control.clearRequests();
    const masked = `${vmId.slice(0, 3)}•••${vmId.slice(-3)}`;
    for (const attempt of [
      () => native().read({ id: masked, props: {}, inputs: {} }),
      () => native().read({ id: masked, props: { vmId: masked, owner: "o" }, inputs: { browser: "chrome" } }),
      () => native().delete({ id: masked, props: { vmId: masked } }),
    ]) {
      const err = await thrown(attempt);
      expect(err.code).toBe("validation");
      expect(err.message).toMatch(/is a masked id: .*cannot address a session/);
    }
    expect(t.emu.control.requests()).toHaveLength(0);
  });

  it("on refresh hands back the recorded inputs as they were, secrets still wrapped, and the share link secret", async () => {
    const inputs = { browser: "chrome", url: secret("https://example.com/p") };
    const { id, outs } = await native().create({ urn: URN, news: inputs });
    const read = await native().read({ id, props: outs, inputs });
    expect(read.id).toBe(id);
    expect(read.inputs).toEqual(inputs);
    expect(isSecret(read.props.shareUrl)).toBe(true);
    expect(isSecret(read.props.url)).toBe(true);
    expect(reveal(read.props)).toEqual(reveal(outs));
  });

  it("on refresh reports a session that has ended as gone", async () => {
    const { id, outs } = await native().create({ urn: URN, news: { browser: "chrome" } });
    t.emu.control.endSession(id);
    expect((await native().read({ id, props: outs, inputs: { browser: "chrome" } })).id).toBe("");
  });
});

describe("check, diff, update and delete", () => {
  it("refuses an input BrowserSession does not have, and passes secret inputs through still wrapped", async () => {
    const { inputs, failures } = await native().check({ news: { browser: "chrome", url: secret("https://example.com/"), colour: "blue" } });
    expect(failures).toEqual([{ property: "colour", reason: expect.stringMatching(/is not an input of BrowserSession/) }]);
    expect(isSecret(inputs.url)).toBe(true);
  });

  it("looks input names up as own properties: constructor, toString and hasOwnProperty are no inputs", async () => {
    const { failures } = await native().check({ news: { browser: "chrome", constructor: "x", toString: "y", hasOwnProperty: "z" } });
    expect(failures.map((f) => f.property).sort()).toEqual(["constructor", "hasOwnProperty", "toString"]);
  });

  it("applies the field table's rules to secret inputs too", async () => {
    const { failures } = await native().check({ news: { browser: "chrome", shareLanguage: secret("xx") } });
    expect(failures.map((f) => f.property)).toEqual(["shareLanguage"]);
  });

  it("replaces the session when a secret input changes, and names in-place changes", () => {
    const olds = { browser: "chrome", url: secret("https://a.example.com/"), readyTimeoutSeconds: 60 };
    expect(native().diff({ id: "vm-1", olds, news: { ...olds, url: secret("https://b.example.com/") } })).toMatchObject({ changes: true, replaces: ["url"], diffs: ["url"] });
    expect(native().diff({ id: "vm-1", olds, news: { ...olds, readyTimeoutSeconds: 90 } })).toMatchObject({ changes: true, replaces: [], diffs: ["readyTimeoutSeconds"] });
    expect(native().diff({ id: "vm-1", olds, news: { ...olds } })).toMatchObject({ changes: false, diffs: [], detailedDiff: [], deleteBeforeReplace: true });
  });

  it("details each changed input: added, removed or changed, on the running session or on a new one", () => {
    const olds = { browser: "chrome", url: secret("https://a.example.com/"), shareLanguage: "de", readyTimeoutSeconds: 60 };
    const { readyTimeoutSeconds: _r, ...news } = { ...olds, url: secret("https://b.example.com/"), shareLanguage: "ja", country: "us" };
    expect(native().diff({ id: "vm-1", olds, news }).detailedDiff).toEqual([
      { property: "shareLanguage", change: "update", replace: false },
      { property: "readyTimeoutSeconds", change: "delete", replace: false },
      { property: "url", change: "update", replace: true },
      { property: "country", change: "add", replace: true },
    ]);
  });

  it("after an import, adopts what the program declares for the inputs the import could not record, then diffs against the recorded inputs", async () => {
    const vmId = (await t.client().createSession({ browser: "firefox", url: "https://started.example.com/", country: "de" })).vmId;
    const { props, inputs } = await native().read({ id: vmId, props: {}, inputs: {}, urn: URN });
    const declared = { browser: "firefox", url: secret("https://started.example.com/"), country: "de", shareLanguage: "fr", readyTimeoutSeconds: 60 };
    // The import's diff (the import option), and the first after a `pulumi import`: the state's inputs are the browser alone.
    expect(native().diff({ id: vmId, olds: props, news: declared, oldInputs: inputs })).toMatchObject({ changes: false, replaces: [], diffs: [] });
    // A value not known yet at preview is no change either.
    expect(native().diff({ id: vmId, olds: props, news: { ...declared, url: UNKNOWN }, oldInputs: inputs })).toMatchObject({ changes: false });
    // Once the state records the declared inputs, a change of one replaces the session, and removing one does too.
    expect(native().diff({ id: vmId, olds: props, news: { ...declared, url: "https://other.example.com/" }, oldInputs: declared })).toMatchObject({ changes: true, replaces: ["url"] });
    const { country: _dropped, ...withoutCountry } = declared;
    expect(native().diff({ id: vmId, olds: props, news: withoutCountry, oldInputs: declared })).toMatchObject({ changes: true, replaces: ["country"] });
    expect(native().diff({ id: vmId, olds: props, news: { ...declared, readyTimeoutSeconds: 90 }, oldInputs: declared })).toMatchObject({
      changes: true,
      replaces: [],
      diffs: ["readyTimeoutSeconds"],
    });
    // The browser, which the service reports, is never adopted.
    expect(native().diff({ id: vmId, olds: props, news: { ...declared, browser: "chrome" }, oldInputs: inputs })).toMatchObject({ changes: true, replaces: ["browser"] });
    // A session the plugin started is diffed against its outputs, as before: nothing is adopted.
    const created = await native().create({ urn: URN.replace("::app", "::own"), news: { browser: "chrome" } });
    expect(native().diff({ id: created.id, olds: created.outs, news: { browser: "chrome", url: "https://x.example.com/" }, oldInputs: {} })).toMatchObject({ changes: true, replaces: ["url"] });
  });

  it("updates in place with the share link still secret", async () => {
    const { outs } = await native().create({ urn: URN, news: { browser: "chrome" } });
    const { outs: updated } = native().update({ olds: outs, news: { browser: "chrome", readyTimeoutSeconds: 90 } });
    expect(updated.readyTimeoutSeconds).toBe(90);
    expect(isSecret(updated.shareUrl)).toBe(true);
  });

  it("ends the session from its recorded (secret-wrapped) outputs", async () => {
    const { id, outs } = await native().create({ urn: URN, news: { browser: "chrome" } });
    await native().delete({ id, props: outs });
    expect(t.emu.control.books()).toMatchObject({ started: 1, running: 0 });
  });
});

describe("warnings on the session's own row", () => {
  /** The plugin's handlers as the front door calls them, on a context that reports to the test. */
  function handlers() {
    const m = pulumiModules();
    const ctx = t.provider({ apiVersion: "v7" }).ctx;
    const h = nativeHandlers(
      m,
      () => {
        throw new Error("no component calls here");
      },
      ctx,
    );
    const callOf = (name: NativeCall, request: unknown) => new Promise<unknown>((resolve, reject) => h[name]!({ request }, (err, value) => (err ? reject(err) : resolve(value))));
    return { m, callOf };
  }

  it("a refresh and a destroy of a version 7 session warn on the URN the engine's Read and Delete name, as create does", async () => {
    const { m, callOf } = handlers();
    const create = new m.proto.CreateRequest();
    create.setUrn(URN);
    create.setType(BROWSER_SESSION);
    create.setProperties(m.struct.Struct.fromJavaScript({ browser: "chrome" }));
    const created = (await callOf("create", create)) as { getId(): string; getProperties(): { toJavaScript(): Record<string, unknown> } };
    const props = m.struct.Struct.fromJavaScript(created.getProperties().toJavaScript());
    for (const [name, Request] of [
      ["read", m.proto.ReadRequest],
      ["delete", m.proto.DeleteRequest],
    ] as const) {
      const req = new Request();
      req.setId(created.getId());
      req.setUrn(URN);
      req.setType(BROWSER_SESSION);
      req.setProperties(props);
      await callOf(name, req);
    }
    expect(t.warnedOn.map((w) => [w.urn, w.message.replace(/^BrowserSession \S+ /, "")])).toEqual([
      [URN, expect.stringMatching(/^was started with API version 7, which has no status or end operation/)],
      [URN, expect.stringMatching(/^API version 7 has no status operation; refresh keeps the recorded state/)],
      [URN, expect.stringMatching(/^was started with API version 7, which cannot end sessions/)],
    ]);
  });

  it("the dynamic provider's refresh and destroy, told no URN, warn on the stack", async () => {
    const provider = t.provider({ apiVersion: "v7" });
    const { id, outs } = await provider.create({ browser: "chrome", __seed: "p/s/app", __urn: URN });
    await provider.read(id, outs as unknown as Record<string, unknown>);
    await provider.delete(id, outs as unknown as Record<string, unknown>);
    expect(t.warnedOn.map((w) => w.urn)).toEqual([URN, undefined, undefined]);
  });
});
