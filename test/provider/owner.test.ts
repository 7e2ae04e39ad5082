import { describe, expect, it } from "vitest";
import { AccountMismatchError, ProviderError, SessionKeptError } from "../../provider/errors";
import { ownerFingerprint, serviceAddress } from "../../provider/owner";
import { thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();
const OTHER_KEY = "rb_test_other_account_key";

function otherAccount() {
  t.emu.control.addAccount({ apiKey: OTHER_KEY, contact: "someone-else@example.test" });
  return t.provider({ apiKey: OTHER_KEY });
}

const running = () => t.emu.control.sessions().filter((s) => s.status === "running").map((s) => s.vmId);

describe("the owner fingerprint", () => {
  it("is derived from the account's contact and the service's address, never from the key", () => {
    const fp = ownerFingerprint("Dev@Example.test", "https://api.example.com/v8/");
    expect(fp).toMatch(/^acct-[0-9a-f]{12}@svc-[0-9a-f]{12}$/);
    // The same account and service, however the address is written or whichever version it names.
    expect(ownerFingerprint(" dev@example.test", "https://API.example.com")).toBe(fp);
    expect(ownerFingerprint("dev@example.test", "https://api.example.com/v7")).toBe(fp);
    expect(serviceAddress("https://api.example.com/base/v8")).toBe("https://api.example.com/base");
    // Another account or another service changes its part only.
    const other = ownerFingerprint("ops@example.test", "https://staging.example.com/v8");
    expect(other.split("@")[0]).not.toBe(fp.split("@")[0]);
    expect(other.split("@")[1]).not.toBe(fp.split("@")[1]);
  });

  it("is recorded with each session created, the same for every session of one account", async () => {
    const a = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const b = await t.provider().create({ browser: "firefox", __seed: "p/s/b" });
    expect(a.outs.owner).toBe(ownerFingerprint("developer@example.test", t.emu.apiBaseUrl));
    expect(b.outs.owner).toBe(a.outs.owner);
    const c = await otherAccount().create({ browser: "chrome", __seed: "p/s/c" });
    expect(c.outs.owner).not.toBe(a.outs.owner);
  });
});

describe("a session asked about with another account's key", () => {
  it("is kept by refresh, which fails naming both fingerprints and what to set", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const props = outs as unknown as Record<string, unknown>;
    const polled = t.requests("status").length;
    const err = await thrown(() => otherAccount().read(id, props));
    expect(err).toBeInstanceOf(AccountMismatchError);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.code).toBe("account_mismatch");
    expect(err.recorded).toBe(outs.owner);
    expect(err.current).toBe(ownerFingerprint("someone-else@example.test", t.emu.apiBaseUrl));
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

describe("the same account", () => {
  it("still counts a session it does not know as gone", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    t.emu.control.reset(); // the service forgot every session
    expect(await t.provider().read(id, outs as unknown as Record<string, unknown>)).toEqual({});
    await t.provider().delete(id, outs as unknown as Record<string, unknown>);
  });

  it("records the fingerprint on the first refresh of a session recorded without one (state of 0.1.0)", async () => {
    const { id, outs } = await t.provider().create({ browser: "chrome", __seed: "p/s/a" });
    const { owner, ...old } = outs as unknown as Record<string, unknown>;
    const read = await t.provider().read(id, old);
    expect(read.id).toBe(id);
    expect(read.props?.owner).toBe(owner);
    // Recorded outputs, not inputs: the next preview shows no change.
    expect(read.inputs).not.toHaveProperty("owner");
  });
});
