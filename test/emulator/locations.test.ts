import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 10 });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

async function entry(vmId: string): Promise<Record<string, unknown>> {
  return (await h.get(`/v8/vm/data?id=${vmId}`)).body.data[0];
}

describe("exit locations", () => {
  it("reports location_applied true without a reason when no country is given, and no location fields in status", async () => {
    const a = await h.create();
    expect(a.body.location_applied).toBe(true);
    expect(a.body).not.toHaveProperty("location_reason");
    const e = await entry(a.body.vmId);
    expect(e).not.toHaveProperty("location_applied");
    expect(e).not.toHaveProperty("location_reason");
  });

  it("applies a requested city while its exit has capacity and carries location_applied true in status", async () => {
    const a = await h.create({ country: "us-dal" });
    expect(a.body.location_applied).toBe(true);
    expect(a.body).not.toHaveProperty("location_reason");
    expect(await entry(a.body.vmId)).toMatchObject({ location_applied: true });
    expect(await entry(a.body.vmId)).not.toHaveProperty("location_reason");
    expect(h.emu.control.sessions()[0]?.exitCode).toBe("us-dal");
  });

  it("starts on the default connection with location_applied false and reason unavailable when the city is full", async () => {
    h.emu.control.settings({ locationCapacity: { "us-dal": 1 } });
    const first = await h.create({ country: "us-dal" });
    expect(first.body.location_applied).toBe(true);
    const second = await h.create({ country: "us-dal" });
    expect(second.body.status).toBe("ok");
    expect(second.body.location_applied).toBe(false);
    expect(second.body.location_reason).toBe("unavailable");
    expect(await entry(second.body.vmId)).toMatchObject({ location_applied: false, location_reason: "unavailable" });
    expect(h.emu.control.sessions().find((s) => s.vmId === second.body.vmId)?.exitCode).toBeNull();
  });

  it("uses the other cities of a country before giving up, default city first", async () => {
    h.emu.control.settings({ locationCapacity: { de: 1 } });
    const a = await h.create({ country: "de" });
    const b = await h.create({ country: "de" });
    const c = await h.create({ country: "de" });
    const exits = h.emu.control.sessions().map((s) => [s.vmId, s.exitCode]);
    expect(Object.fromEntries(exits)).toEqual({ [a.body.vmId]: "de-fra", [b.body.vmId]: "de-ber", [c.body.vmId]: null });
    expect(c.body.location_applied).toBe(false);
  });

  it("frees the exit when the session ends", async () => {
    h.emu.control.settings({ locationCapacity: { "uk-lon": 1 } });
    const a = await h.create({ country: "uk-lon" });
    await h.post("/v8/vm/remove", { id: a.body.vmId });
    const b = await h.create({ country: "uk-lon" });
    expect(b.body.location_applied).toBe(true);
  });

  it("reports location_applied false for auto when no exit is free anywhere", async () => {
    const capacity = Object.fromEntries(["us", "de", "uk", "fr", "jp", "nl"].map((c) => [c, 0]));
    h.emu.control.settings({ locationCapacity: capacity });
    const a = await h.create({ country: "auto" });
    expect(a.body).toMatchObject({ status: "ok", location_applied: false, location_reason: "unavailable" });
  });

  it("uses only the country part for residential egress and does not take a datacenter exit", async () => {
    h.emu.control.settings({ locationCapacity: { "us-dal": 0 } });
    const a = await h.create({ egress: "residential", country: "us-dal" });
    expect(a.body).toMatchObject({ status: "ok", location_applied: true });
    const view = h.emu.control.sessions()[0]!;
    expect(view.exitCode).toBeNull();
    expect(view.egress).toBe("residential");
  });

  it("accepts residential egress without a country", async () => {
    const a = await h.create({ egress: "residential" });
    expect(a.body.status).toBe("ok");
    expect(a.body.location_applied).toBe(true);
  });

  it("refuses capacity settings for unknown location codes", () => {
    expect(() => h.emu.control.settings({ locationCapacity: { "xx-abc": 1 } })).toThrow(/unknown location code/);
  });
});
