import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { RunFailed, withStack } from "./harness";
import type { E2EStack } from "./harness";

const TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";
const OTHER_KEY = "rb_test_account_b_0123456789abcdef";

async function idsInState(stack: E2EStack): Promise<string[]> {
  const exported = JSON.parse(await stack.exportState());
  return (exported.deployment.resources ?? []).filter((r: { type: string }) => r.type === TYPE).map((r: { id: string }) => r.id);
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RunFailed) return err.stdout + err.stderr;
    throw err;
  }
  throw new Error("expected the run to fail");
}

it("keeps a session in the stack when switched to the key of an account whose contact differs only in case and spacing, follows its own account through a contact change, and warns when the API key is set as plain (non-secret) stack config", async () => {
  await withStack("sessions.js", async (stack) => {
    // The emulator's default account is developer@example.test: the contact of the other one is a variant
    // of it, which an earlier fingerprint (the lower-cased, trimmed contact) could not tell apart.
    stack.emulator.control.addAccount({ apiKey: OTHER_KEY, contact: "Developer@Example.test " });
    const up = await stack.run("up");
    const vmId = (up.outputs.vmIds as Record<string, string>).chrome;
    const running = () => stack.emulator.control.sessions().find((s) => s.vmId === vmId)?.status;

    // The stack now runs with account B's key: the update itself changes no session (the runner's up reads
    // the sessions first, with the settings the last update recorded: A's key)...
    await stack.run("up", { apiKey: OTHER_KEY, expectNoChanges: true });
    // ...but refresh cannot see A's session with B's key, and must not take that for "gone".
    const refresh = await failure(stack.run("refresh", { apiKey: OTHER_KEY }));
    expect(refresh).toMatch(/refreshing session vm-\w+: it belongs to account acct2-[0-9a-f]{16}-[\w+]+, but the configured key belongs to account acct2-/);
    expect(refresh).toContain("remote-browser:apiKey");
    expect(await idsInState(stack)).toEqual([vmId]);
    expect(running()).toBe("running");

    const destroy = await failure(stack.run("destroy", { apiKey: OTHER_KEY }));
    expect(destroy).toMatch(/ending session vm-\w+: it belongs to account acct2-/);
    expect(await idsInState(stack)).toEqual([vmId]);
    expect(running()).toBe("running");

    // Back to the key of the account that made it, which has changed its contact meanwhile: refresh keeps
    // the session (recording the new contact's digest, then nothing more), destroy ends it.
    const { accountId } = stack.emulator.control.sessions().find((s) => s.vmId === vmId)!;
    stack.emulator.control.updateAccount(accountId, { contact: "renamed-team@example.test" });
    // That key is set as plain (non-secret) stack config here, by a user's `pulumi config set` without
    // --secret (the value on standard input; the runner refuses a credential as plain --config): the update
    // changes nothing, and warns.
    const set = await stack.cli(["config", "set", "remote-browser:apiKey"], stack.emulator.apiKey);
    expect(set.code, set.stderr).toBe(0);
    expect(fs.readFileSync(path.join(stack.workDir, `Pulumi.${stack.name}.yaml`), "utf8")).toContain(`remote-browser:apiKey: ${stack.emulator.apiKey}`);
    // Pulumi refreshes with the settings the last update recorded (B's key, which cannot read A's session):
    // the runner's up reads first, so after a change of key one up skips that read, and records A's.
    const refused = await failure(stack.run("up", { apiKey: null }));
    expect(refused).toMatch(/refreshing session vm-\w+: it belongs to account acct2-/);
    expect(await idsInState(stack)).toEqual([vmId]);
    const plain = await stack.run("up", { apiKey: null, expectNoChanges: true, extraArgs: ["--no-refresh"] });
    expect(plain.stdout + plain.stderr).toContain("remote-browser:apiKey is set as plain (non-secret) stack config");
    expect(plain.stdout + plain.stderr).toContain("pulumi config set --secret remote-browser:apiKey");
    const followed = await stack.run("refresh");
    expect(followed.changes.delete ?? 0).toBe(0);
    expect(await idsInState(stack)).toEqual([vmId]);
    await stack.run("refresh", { expectNoChanges: true });
    await stack.run("destroy");
    expect(await idsInState(stack)).toEqual([]);
    expect(running()).toMatch(/stopping|deleted/);
    expect(stack.emulator.control.books().neverEnded).toBe(0);
  });
});
