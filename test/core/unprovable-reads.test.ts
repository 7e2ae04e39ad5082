import { describe, expect, it } from "vitest";
import { readById } from "../../core/controller";
import { CURRENT_STATE_VERSION } from "../../core/state";
import { eventually, thrown, useEmulator } from "../helpers/emulator";

/**
 * A service (or a proxy before it) that answers every status call about an id with the account's list
 * (the latitude profile's `listForId: "always"`): no read ever proves one session's state. A refresh keeps
 * the record as it is, with a warning; a destroy still ends the session; an import takes a listed entry
 * only when exactly one agrees with the id asked for.
 */
const t = useEmulator({ latitude: { listForId: "always", unnamedForMs: 0 } });

/** Starts `n` sessions outside Pulumi and waits until each runs; several, so that each list holds others. */
async function startedOutside(n: number): Promise<string[]> {
  const client = t.client();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await client.createSession({ browser: i % 2 ? "firefox" : "chrome" })).vmId);
  await eventually(() => ids.every((id) => t.emu.control.sessions().find((s) => s.vmId === id)?.status === "running") || undefined);
  return ids;
}

const statusOf = (vmId: string) => t.emu.control.sessions().find((s) => s.vmId === vmId)?.status;

describe("a status that cannot be proven", () => {
  it("refresh keeps the record as it is, with a warning that says what was not proven; destroy then ends the session", async () => {
    const [a, b, c] = await startedOutside(3);
    const provider = t.provider();
    // The record a create of this release wrote for `b` (made by hand: no create can prove its session runs here).
    const id = b!;
    const recorded = { browser: "firefox", vmId: id, status: "running", browserName: "Mozilla Firefox", apiVersion: "v8", owner: await provider.ctx.owner(), __stateVersion: CURRENT_STATE_VERSION };
    const read = await provider.read(id, recorded);
    expect(read.id).toBe(b);
    expect(read.props).toEqual(recorded);
    expect(t.warnings).toHaveLength(1);
    expect(t.warnings[0]).toMatch(
      new RegExp(
        `refreshing session ${b}: 3 status answers for this id did not list it alone \\(the last: 3 entries, none provably this session\\).*It stays in the stack as recorded \\(status "running", not confirmed\\); a destroy still ends it`,
      ),
    );

    await provider.delete(id, recorded);
    expect(statusOf(b!)).not.toBe("running");
    // Nothing else touched.
    expect([statusOf(a!), statusOf(c!)]).toEqual(["running", "running"]);
  });

  it("import takes the one listed entry whose masked id agrees with the id asked for, on both fronts' paths", async () => {
    const [a, b, c] = await startedOutside(3);
    // The `import` resource option (the dynamic resource's adoption).
    const provider = t.provider();
    const adopted = await provider.create({ browser: "chrome", __seed: "p/s/one", __adoptVmId: a! });
    expect(adopted.id).toBe(a);
    expect(adopted.outs).toMatchObject({ vmId: a, status: "running", browserName: "Google Chrome" });
    // `pulumi import` (the plugin's read by id alone).
    const found = await readById(provider.ctx, c!, "reading session by its id (pulumi import, or a get)");
    expect(found.inputs).toEqual({ browser: "chrome" });
    expect(found.outs).toMatchObject({ vmId: c, status: "running", browserName: "Google Chrome" });
    expect(t.emu.control.books().started).toBe(3);
    expect(statusOf(b!)).toBe("running");
  });

  it("import refuses, naming why, when no listed entry or more than one agrees with the id", async () => {
    const [a] = await startedOutside(2);
    // Another session whose masked id shows the same visible characters.
    const twin = `vm-${"f".repeat(a!.length - 7)}${a!.slice(-4)}`;
    t.emu.control.seedSession({ vmId: twin, browser: "chrome", linkId: "unprovabletwin01" });
    const provider = t.provider();
    const several = await thrown(() => readById(provider.ctx, a!, "importing"));
    expect(several).toMatchObject({ code: "import_failed", vmId: a });
    expect(several.message).toMatch(
      /importing: 3 status answers for this id did not list it alone .*; 2 listed entries agree with the id, so which is this session cannot be told and nothing was imported/,
    );

    const unlisted = `vm-${"0".repeat(a!.length - 3)}`;
    const none = await thrown(() => provider.create({ browser: "chrome", __seed: "p/s/none", __adoptVmId: unlisted }));
    expect(none).toMatchObject({ code: "import_failed" });
    expect(none.message).toMatch(/no listed entry agrees with the id, so which is this session cannot be told and nothing was imported/);
    expect(t.emu.control.books().started).toBe(2);
  });
});
