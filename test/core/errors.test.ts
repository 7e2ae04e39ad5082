import * as fs from "node:fs";
import * as path from "node:path";
import { inspect } from "node:util";
import * as vm from "node:vm";
import { describe, expect, it } from "vitest";
import * as ts from "typescript";
import * as pkg from "../../sdk";
import { AccountMismatchError, EngineGoneError, NotRunningInTimeError, PreparationFailedError, RemoteBrowserError, SessionKeptError, errorFromAnswer, isRemoteBrowserError } from "../../client/errors";
import { asInitFailure, settlement } from "../../core/controller";
import type { WaitOutcome } from "../../core/launch";

/** A second copy of errors.ts, loaded apart from this one (as a bundled or duplicated package would be). */
function otherCopy(): typeof import("../../client/errors") {
  const source = fs.readFileSync(path.join(__dirname, "../../client/errors.ts"), "utf8");
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const module = { exports: {} as Record<string, unknown> };
  vm.runInNewContext(js, { module, exports: module.exports, Symbol, Object, Error });
  return module.exports as never;
}

describe("the package's one error family", () => {
  it("gives each member a fixed name and a stable code, and instanceof follows the code", () => {
    const err = new NotRunningInTimeError("session vm-1 was not running", { vmId: "vm-1" });
    expect(err.name).toBe("NotRunningInTimeError");
    expect(err.code).toBe("not_running_in_time");
    expect(err.vmId).toBe("vm-1");
    expect(err).toBeInstanceOf(NotRunningInTimeError);
    expect(err).toBeInstanceOf(RemoteBrowserError);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PreparationFailedError);
    expect(isRemoteBrowserError(err)).toBe(true);
    expect(isRemoteBrowserError(new Error("x"))).toBe(false);
  });

  it("holds the client's errors too: one base class, one brand, one code", () => {
    const refused = errorFromAnswer({ status: "denied", message: "invalid API key" }, { operation: "read account" }, (text) => text);
    expect(refused).toBeInstanceOf(RemoteBrowserError);
    expect(refused).not.toBeInstanceOf(NotRunningInTimeError);
    // A member's message is its own, whole: neither an operation nor the session is added to it.
    expect(new NotRunningInTimeError("session vm-1 was not running", { vmId: "vm-1" }).message).toBe("session vm-1 was not running");
    expect(refused.message).toBe('read account failed: the service refused the request (denied); service message: "invalid API key"');
  });

  it("recognises errors made by another copy of the package (Symbol.for brand)", () => {
    const copy = otherCopy();
    const foreign = new copy.EngineGoneError("the engine went away", { vmId: "vm-2" });
    expect(foreign).toBeInstanceOf(EngineGoneError);
    expect(foreign).toBeInstanceOf(RemoteBrowserError);
    expect(foreign).not.toBeInstanceOf(AccountMismatchError);
    expect(isRemoteBrowserError(foreign)).toBe(true);
    expect(new EngineGoneError("x")).toBeInstanceOf(copy.EngineGoneError);
    const refused = new copy.RemoteBrowserError("rate_limited", "slow down", { operation: "read quota", reason: "rate_limited" });
    expect(refused).toBeInstanceOf(RemoteBrowserError);
    expect(refused.rateLimited).toBe(true);
  });

  it("is exported as values from the package's entry point", () => {
    for (const name of ["RemoteBrowserError", "AccountMismatchError", "SessionKeptError", "ConfigError", "StaleIdempotencyKeyError", "isRemoteBrowserError"]) {
      expect(typeof (pkg as Record<string, unknown>)[name]).toBe("function");
    }
  });

  it("keeps the earlier release's names as deprecated aliases: ProviderError the base class, isProviderError for the provider's own codes", () => {
    expect(pkg.ProviderError).toBe(RemoteBrowserError);
    const decided = new pkg.ConfigError("remote-browser:baseUrl is not an absolute http(s) URL", { property: "baseUrl" });
    expect(decided).toBeInstanceOf(pkg.ProviderError);
    expect(pkg.isProviderError(decided)).toBe(true);
    expect(pkg.isProviderError(new AccountMismatchError("m", "a", "b"))).toBe(true);
    expect(pkg.isProviderError(new RemoteBrowserError("denied", "refused", { operation: "read account" }))).toBe(false);
    expect(pkg.isProviderError(new Error("x"))).toBe(false);
  });

  it("keeps the shape the dynamic provider host recognises for a created-but-failed session, and only then has an id", () => {
    const outputs = { vmId: "vm-3", status: "unknown", shareUrl: "https://share/en/s?x", shareUrlPath: "/en/s?x", country: undefined };
    const kept = asInitFailure(new SessionKeptError("ending it failed", { vmId: "vm-3", outputs }), (p) => ({ ...p, __provider: "p" })) as SessionKeptError;
    expect(kept.id).toBe("vm-3");
    // The share link stays out: the dynamic host records these properties as given, unable to mark one secret.
    expect(kept.properties).toEqual({ vmId: "vm-3", status: "unknown", __provider: "p" });
    expect(kept.reasons).toEqual(["ending it failed"]);
    const unshaped = new SessionKeptError("ending it failed", { vmId: "vm-3", outputs });
    expect(unshaped).not.toHaveProperty("id");
    // The outputs it carries hold the link: an error printed or serialised whole does not show them.
    expect(JSON.stringify(unshaped)).not.toContain("share");
    expect(inspect(unshaped)).not.toContain("share");
    // From delete: the resource is in the state already; an id would make the host report a partial create.
    const fromDelete = new SessionKeptError("ending failed", { vmId: "vm-3" });
    expect(asInitFailure(fromDelete, (p) => p)).not.toHaveProperty("id");
    expect(asInitFailure(new AccountMismatchError("m", "a", "b", { vmId: "vm-4" }), (p) => p)).not.toHaveProperty("id");
  });
});

const entry = (status: string, extra: Record<string, unknown> = {}) => ({ id: "vm-5", status, name: "Google Chrome", created: "2026-01-01T00:00:00Z", ...extra }) as never;

describe("settlement: what the wait's outcome means for create", () => {
  const s = { vmId: "vm-5", timeoutMs: 30_000, country: "de", requireLocation: false };
  const table: Array<[string, WaitOutcome, Partial<typeof s>, { kind: string; code?: string; message?: RegExp }]> = [
    ["running", { kind: "running", entry: entry("running"), polls: 1 }, {}, { kind: "running" }],
    ["running without its location", { kind: "running", entry: entry("running", { location_applied: false, location_reason: "unavailable" }), polls: 1 }, {}, { kind: "running" }],
    [
      "running without its location, requireLocation set",
      { kind: "running", entry: entry("running", { location_applied: false }), polls: 1 },
      { requireLocation: true },
      { kind: "remove", code: "location_not_applied", message: /no free exit in "de".*requireLocation is set/ },
    ],
    ["failed preparation", { kind: "failed", entry: entry("error"), polls: 1 }, {}, { kind: "remove", code: "preparation_failed", message: /preparation ended in state "error"/ }],
    ["ended while starting", { kind: "ended", entry: entry("deleted"), polls: 1 }, {}, { kind: "fail", code: "ended_while_starting", message: /ended \(state "deleted"\)/ }],
    ["unknown to the service", { kind: "unknown", polls: 1 }, {}, { kind: "fail", code: "ended_while_starting" }],
    [
      "timeout",
      { kind: "timeout", last: "starting", polls: 9 },
      {},
      { kind: "remove", code: "not_running_in_time", message: /not running after 30 s \(last state "starting"\); raise readyTimeoutSeconds/ },
    ],
    ["engine gone", { kind: "engine-gone", polls: 2 }, {}, { kind: "fail", code: "engine_gone", message: /leaving it for the next update/ }],
    ["update cancelled", { kind: "cancelled", polls: 2 }, {}, { kind: "remove", code: "cancelled", message: /update was cancelled while session vm-5 was starting/ }],
  ];
  for (const [name, outcome, extra, expected] of table) {
    it(name, () => {
      const v = settlement(outcome, { ...s, ...extra });
      expect(v.kind).toBe(expected.kind);
      if (v.kind !== "running") {
        const err = new v.Failure(v.why, { vmId: "vm-5" });
        expect(err.code).toBe(expected.code);
        if (expected.message) expect(err.message).toMatch(expected.message);
        expect(err.message).toContain("vm-5");
      }
    });
  }

  it("warns, naming the session, when the location was not applied and requireLocation is not set", () => {
    const v = settlement({ kind: "running", entry: entry("running"), polls: 1 }, { ...s, answered: { locationApplied: false } });
    expect(v).toMatchObject({ kind: "running", warning: expect.stringContaining("session vm-5 started on the default connection") });
  });
});
