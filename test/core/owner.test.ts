import { describe, expect, it } from "vitest";
import { AccountMismatchError, OwnerUnprovenError, RemoteBrowserError, SessionKeptError } from "../../client/errors";
import { ownerFingerprint, serviceAddress, assertSameRecord, legacyFingerprint, type OwnerIdentity, type SameOwner } from "../../core/state";
import { thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

/** The owner check of an owner record alone, written before versions were recorded (its layout inferred). */
function assertSameOwner(vmId: string, recorded: unknown, identity: OwnerIdentity, doing: string): SameOwner {
  const { proven, state } = assertSameRecord(vmId, { owner: recorded }, identity, doing);
  return { proven, record: state.owner };
}
const OTHER_KEY = "rb_test_other_account_key";

function otherAccount(add = true) {
  if (add) t.emu.control.addAccount({ apiKey: OTHER_KEY, contact: "someone-else@example.test" });
  return t.provider({ apiKey: OTHER_KEY });
}

const running = () =>
  t.emu.control
    .sessions()
    .filter((s) => s.status === "running")
    .map((s) => s.vmId);

/**
 * A created session's outputs as a build before versions were recorded wrote them: no `__stateVersion`, and
 * the owner record given (the contact hash of the builds before the salted fingerprint; none in 0.1.0).
 */
const unversioned = (outs: object, owner?: string): Record<string, unknown> => {
  const { __stateVersion: _v, owner: _owner, ...rest } = outs as Record<string, unknown>;
  return owner === undefined ? rest : { ...rest, owner };
};

const identity = (contact: string, subscriptions: string[] = ["sub_base", "sub_addon"], service = "https://api.example.com"): OwnerIdentity => ({
  contact,
  subscriptions,
  service,
});
const DEV = identity("Dev@Example.test");

describe("the owner fingerprint", () => {
  it("records salted digests of the account's subscriptions and exact contact, and the service's address, never the key", () => {
    const fp = ownerFingerprint(DEV);
    expect(fp).toMatch(/^acct2-[0-9a-f]{16}-[0-9a-f]{16}\+[0-9a-f]{16}\+[0-9a-f]{16}@svc-[0-9a-f]{12}$/);
    for (const plain of ["Dev@Example.test", "dev@example.test", "sub_base", "sub_addon"]) expect(fp).not.toContain(plain);
    // A fresh salt each time: two sessions of one account cannot be linked by their records.
    expect(ownerFingerprint(DEV)).not.toBe(fp);
    expect(fp.split("@")[1]).toBe(ownerFingerprint(DEV).split("@")[1]);
    // With the same salt, the same identity gives the same record.
    const salt = fp.slice("acct2-".length, "acct2-".length + 16);
    expect(ownerFingerprint(DEV, salt)).toBe(fp);
    expect(ownerFingerprint(identity("dev@example.test"), salt)).not.toBe(fp);
    // The service's part is the same however its address is written or whichever version it names.
    expect(serviceAddress("https://API.example.com/v8/")).toBe("https://api.example.com");
    expect(serviceAddress("https://api.example.com/v7")).toBe("https://api.example.com");
    expect(serviceAddress("https://api.example.com/base/v8")).toBe("https://api.example.com/base");
  });

  it("is recorded with each session created, salted per session", async () => {
    const a = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const b = await t.provider().create({ browser: "firefox", __seed: "p/s/b" });
    expect(a.outs.owner).toMatch(/^acct2-[0-9a-f]{16}-[0-9a-f]{16}(\+[0-9a-f]{16}){2}@svc-[0-9a-f]{12}$/);
    expect(b.outs.owner).not.toBe(a.outs.owner);
    const mine = { contact: "developer@example.test", subscriptions: ["sub_1_base", "sub_1_addon"], service: serviceAddress(t.emu.apiBaseUrl) };
    expect(assertSameOwner("vm-a", a.outs.owner, mine, "testing")).toEqual({ proven: true, record: a.outs.owner });
  });
});

describe("assertSameOwner", () => {
  const recordOf = (who: OwnerIdentity) => ownerFingerprint(who);
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return (err as { code?: string }).code;
    }
    return "same";
  };

  it("knows the account by a subscription in common, whatever its contact became", () => {
    const recorded = recordOf(DEV);
    // Contact changed: the subscriptions still say who it is; the record follows the new contact.
    const moved = identity("new-address@example.test");
    const verdict = assertSameOwner("vm-a", recorded, moved, "refreshing");
    expect(verdict.proven).toBe(true);
    expect(verdict.record).not.toBe(recorded);
    expect(verdict.record.slice(0, 23)).toBe(recorded.slice(0, 23)); // the same salt
    expect(assertSameOwner("vm-a", verdict.record, moved, "refreshing")).toEqual({ proven: true, record: verdict.record });
    // A plan change that adds a subscription (or ends one of two) keeps the binding.
    expect(code(() => assertSameOwner("vm-a", recorded, identity("Dev@Example.test", ["sub_base", "sub_new"]), "x"))).toBe("same");
    expect(code(() => assertSameOwner("vm-a", recorded, identity("Dev@Example.test", ["sub_addon"]), "x"))).toBe("same");
  });

  it("refuses another account whose contact differs only in case or spacing, or is the same", () => {
    const recorded = recordOf(DEV);
    for (const contact of ["dev@example.test", "Dev@Example.test ", " DEV@EXAMPLE.TEST", "Dev@Example.test"]) {
      expect(code(() => assertSameOwner("vm-a", recorded, identity(contact, ["sub_other"]), "refreshing"))).toBe("account_mismatch");
    }
  });

  it("compares the exact contact where one side has no subscription (no plan, or API version 7)", () => {
    const noPlan = identity("Dev@Example.test", []);
    const recorded = recordOf(noPlan);
    expect(assertSameOwner("vm-a", recorded, noPlan, "x").proven).toBe(true);
    // An answer without pools keeps the record as it is: the subscriptions recorded stay the proof.
    const withSubs = recordOf(DEV);
    expect(assertSameOwner("vm-a", withSubs, noPlan, "x")).toEqual({ proven: true, record: withSubs });
    // Once the account has subscriptions, the record gains them.
    expect(assertSameOwner("vm-a", recorded, DEV, "x").record).toMatch(/(\+[0-9a-f]{16}){2}@/);
    for (const contact of ["dev@example.test", "Dev@Example.test ", "Dev@Example.test\t"]) {
      expect(code(() => assertSameOwner("vm-a", recorded, identity(contact, []), "x"))).toBe("account_mismatch");
      expect(code(() => assertSameOwner("vm-a", withSubs, identity(contact, []), "x"))).toBe("account_mismatch");
      expect(code(() => assertSameOwner("vm-a", recorded, identity(contact), "x"))).toBe("account_mismatch");
    }
  });

  it("refuses another service, naming both fingerprints with the record's salt", () => {
    const recorded = recordOf(DEV);
    const elsewhere = identity("Dev@Example.test", ["sub_base"], "https://staging.example.com");
    const err = (() => {
      try {
        assertSameOwner("vm-a", recorded, elsewhere, "ending");
      } catch (e) {
        return e as AccountMismatchError;
      }
      throw new Error("expected a mismatch");
    })();
    expect(err).toBeInstanceOf(AccountMismatchError);
    expect(err.message).toMatch(/^ending session vm-a: it belongs to service svc-[0-9a-f]{12}, but remote-browser:baseUrl points at service svc-/);
    expect(err.message).not.toContain("account acct2");
    expect(err.current.slice(0, 23)).toBe(recorded.slice(0, 23));
  });

  it("still reads the legacy record (a hash of the normalised contact): it binds, proves nothing, and is replaced", () => {
    const legacy = legacyFingerprint(" dev@EXAMPLE.test", "https://API.example.com/v8/");
    expect(legacy).toMatch(/^acct-[0-9a-f]{12}@svc-[0-9a-f]{12}$/);
    const verdict = assertSameOwner("vm-a", legacy, DEV, "refreshing");
    expect(verdict.proven).toBe(false);
    expect(verdict.record).toMatch(/^acct2-/);
    expect(assertSameOwner("vm-a", verdict.record, DEV, "refreshing").proven).toBe(true);
    expect(code(() => assertSameOwner("vm-a", legacy, identity("ops@example.test"), "x"))).toBe("account_mismatch");
    expect(code(() => assertSameOwner("vm-a", legacy, identity("Dev@Example.test", [], "https://staging.example.com"), "x"))).toBe("account_mismatch");
  });

  it("proves nothing for a session recorded without a fingerprint, and refuses one it cannot read", () => {
    const verdict = assertSameOwner("vm-a", undefined, DEV, "refreshing");
    expect(verdict.proven).toBe(false);
    expect(assertSameOwner("vm-a", verdict.record, DEV, "x").proven).toBe(true);
    expect(code(() => assertSameOwner("vm-a", "acct3-something@svc-000000000000", DEV, "x"))).toBe("account_mismatch");
  });
});

describe("a session asked about with another account's key", () => {
  it("is kept by refresh, which fails naming both fingerprints and what to set", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const props = outs as unknown as Record<string, unknown>;
    const polled = t.requests("status").length;
    const err = await thrown(() => otherAccount().read(id, props));
    expect(err).toBeInstanceOf(AccountMismatchError);
    expect(err).toBeInstanceOf(RemoteBrowserError);
    expect(err.code).toBe("account_mismatch");
    expect(err.recorded).toBe(outs.owner);
    const salt = String(outs.owner).slice(0, "acct2-".length + 16);
    expect(err.current.startsWith(salt)).toBe(true);
    expect(err.current).not.toBe(outs.owner);
    expect(err.message).toContain(`session ${id}`);
    expect(err.message).toContain(String(outs.owner));
    expect(err.message).toContain(err.current);
    expect(err.message).toContain("remote-browser:apiKey");
    // Not "gone": an error, never a result without an id. And the service was not asked about the session.
    expect(t.requests("status")).toHaveLength(polled);
    expect(running()).toEqual([id]);
  });

  it("is not ended by delete, which fails so that the resource stays in the stack", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const err = await thrown(() => otherAccount().delete(id, outs as unknown as Record<string, unknown>));
    expect(err.code).toBe("account_mismatch");
    expect(err).not.toHaveProperty("id");
    expect(t.requests("remove")).toHaveLength(0);
    expect(running()).toEqual([id]);
    // The right key ends it.
    await t.provider().delete(id, outs as unknown as Record<string, unknown>);
    expect(running()).toEqual([]);
  });

  it("is refused when the base URL names another service, even with the same key", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    // The same emulator under another address: another service as far as the fingerprint can tell.
    const elsewhere = t.provider({ baseUrl: t.emu.apiBaseUrl.replace("127.0.0.1", "localhost") });
    const err = await thrown(() => elsewhere.read(id, outs as unknown as Record<string, unknown>));
    expect(err.code).toBe("account_mismatch");
    expect(err.message).toMatch(/service svc-[0-9a-f]{12}, but remote-browser:baseUrl points at service svc-/);
  });

  it("fails delete as kept in the stack when the key itself is refused", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const err = await thrown(() => t.provider({ apiKey: "rb_test_revoked" }).delete(id, outs as unknown as Record<string, unknown>));
    expect(err).toBeInstanceOf(SessionKeptError);
    expect(running()).toEqual([id]);
  });
});

describe("a second account whose contact differs only in case or spacing", () => {
  const twins = ["Developer@Example.test", "developer@example.test ", " DEVELOPER@example.TEST"];

  function twin(i: number) {
    const apiKey = `rb_test_twin_${i}_account_key`;
    t.emu.control.addAccount({ apiKey, contact: twins[i]! });
    return t.provider({ apiKey });
  }

  it("can neither drop by refresh nor end by destroy the first account's session", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const props = outs as unknown as Record<string, unknown>;
    const polled = t.requests("status").length;
    for (let i = 0; i < twins.length; i++) {
      const other = twin(i);
      expect((await thrown(() => other.read(id, props))).code).toBe("account_mismatch");
      expect((await thrown(() => other.delete(id, props))).code).toBe("account_mismatch");
    }
    expect(t.requests("status")).toHaveLength(polled);
    expect(t.requests("remove")).toHaveLength(0);
    expect(running()).toEqual([id]);
  });

  it("cannot drop or end a session recorded with the legacy fingerprint, which it shares", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const props = unversioned(outs, legacyFingerprint("developer@example.test", t.emu.apiBaseUrl));
    const other = twin(0);
    const refresh = await thrown(() => other.read(id, props));
    expect(refresh).toBeInstanceOf(OwnerUnprovenError);
    expect(refresh.message).toContain("only the older owner fingerprint");
    const destroy = await thrown(() => other.delete(id, props));
    expect(destroy.code).toBe("owner_unproven");
    expect(destroy).not.toHaveProperty("id");
    expect(running()).toEqual([id]);
    // The account that made it refreshes it, which replaces the legacy record, and ends it.
    const read = await t.provider().read(id, props);
    expect(read.id).toBe(id);
    expect(read.props?.owner).toMatch(/^acct2-/);
    expect((await thrown(() => other.read(id, read.props!))).code).toBe("account_mismatch");
    await t.provider().delete(id, props);
    expect(running()).toEqual([]);
  });
});

describe("an account that changes its contact address", () => {
  it("keeps refreshing and destroying its sessions", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const { accountId } = t.emu.control.sessions()[0]!;
    t.emu.control.updateAccount(accountId, { contact: "renamed-team@example.test" });
    const read = await t.provider().read(id, outs as unknown as Record<string, unknown>);
    expect(read.id).toBe(id);
    // The record follows the account (same salt, the new contact's digest)...
    expect(read.props?.owner).not.toBe(outs.owner);
    expect(String(read.props?.owner).slice(0, 22)).toBe(String(outs.owner).slice(0, 22));
    // ...and stays as it is while nothing changes: refresh shows no change.
    expect((await t.provider().read(id, read.props!)).props?.owner).toBe(read.props?.owner);
    // Both the record from before the change and the one after end the session.
    await t.provider().delete(id, outs as unknown as Record<string, unknown>);
    expect(running()).toEqual([]);
    const again = await t.provider().create({ browser: "chrome", __seed: "p/s/b" });
    t.emu.control.updateAccount(accountId, { contact: "Developer@Example.test" });
    await t.provider().delete(again.id, again.outs as unknown as Record<string, unknown>);
    expect(running()).toEqual([]);
  });
});

describe("the same account", () => {
  it("still counts a session it does not know as gone", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    t.emu.control.reset(); // the service forgot every session
    expect(await t.provider().read(id, outs as unknown as Record<string, unknown>)).toEqual({});
    await t.provider().delete(id, outs as unknown as Record<string, unknown>);
  });

  it("records the fingerprint on the first refresh of a session recorded without one (state of 0.1.0)", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const old = unversioned(outs);
    const read = await t.provider().read(id, old);
    expect(read.id).toBe(id);
    expect(read.props?.owner).toMatch(/^acct2-[0-9a-f]{16}-[0-9a-f]{16}(\+[0-9a-f]{16}){2}@svc-[0-9a-f]{12}$/);
    // Recorded outputs, not inputs: the next preview shows no change.
    expect(read.inputs).not.toHaveProperty("owner");
    // From then on refresh keeps it as it is.
    expect((await t.provider().read(id, read.props!)).props?.owner).toBe(read.props?.owner);
  });

  it("replaces a legacy fingerprint on refresh, and destroys a session recorded with one", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const props = unversioned(outs, legacyFingerprint("developer@example.test", t.emu.apiBaseUrl));
    const read = await t.provider().read(id, props);
    expect(read.props?.owner).toMatch(/^acct2-/);
    await t.provider().delete(id, props);
    expect(running()).toEqual([]);
  });
});

describe("a session recorded without a fingerprint (state of 0.1.0)", () => {
  const without = (outs: object) => unversioned(outs);

  it("is kept in the stack when another account's key destroys it, naming the cause and both ways out", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const err = await thrown(() => otherAccount().delete(id, without(outs)));
    expect(err).toBeInstanceOf(OwnerUnprovenError);
    expect(err).not.toHaveProperty("id");
    expect(err.message).toContain(`ending session ${id}: the service does not know it under the configured key`);
    expect(err.message).toContain("records no owner fingerprint");
    expect(err.message).toContain("remote-browser:apiKey");
    expect(err.message).toContain("pulumi state delete");
    expect(running()).toEqual([id]);
    // The same goes for refresh, which must not drop it.
    expect((await thrown(() => otherAccount(false).read(id, without(outs)))).code).toBe("owner_unproven");
    expect(running()).toEqual([id]);
  });

  it("is ended by the account that made it", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    await t.provider().delete(id, without(outs));
    expect(running()).toEqual([]);
  });

  it("is kept even by its own account when the service no longer knows it: nothing shows whose it was", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    t.emu.control.reset();
    expect((await thrown(() => t.provider().delete(id, without(outs)))).code).toBe("owner_unproven");
    expect((await thrown(() => t.provider().read(id, without(outs)))).code).toBe("owner_unproven");
  });
});

describe("delete with another account's key whose account cannot be read", () => {
  it("keeps the session in the stack and sends no remove", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const other = otherAccount();
    t.emu.control.fault({ operation: "account", kind: "error", count: 20 });
    const err = await thrown(() => other.delete(id, outs as unknown as Record<string, unknown>));
    expect(err).toBeInstanceOf(SessionKeptError);
    expect(err.message).toContain(`ending session ${id} failed, so it stays in the stack`);
    expect(t.requests("remove")).toHaveLength(0);
    expect(running()).toEqual([id]);
  });
});
