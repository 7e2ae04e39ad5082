import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_LATITUDE } from "../../emulator";
import { startHarness, waitForStatus } from "./harness";
import type { Harness } from "./harness";

/** The latitude profile: each freedom the spec leaves, taken, and nothing else changed. */
let h: Harness;
afterEach(() => h?.emu.close());

describe("the emulator's latitude profile", () => {
  it("answers every other status call about an id (the first included) with the account's list, current and whole", async () => {
    h = await startHarness({ latitude: true });
    const a = (await h.create()).body.vmId as string;
    const b = (await h.create({ browser: "firefox" })).body.vmId as string;
    const asks = [];
    for (let i = 0; i < 4; i++) asks.push((await h.get(`/v8/vm/data?id=${a}`)).body.data.map((e: { id: string }) => e.id.slice(-4)));
    // Newest first, and not lagging: the session started a moment ago is listed.
    expect(asks).toEqual([[b.slice(-4), a.slice(-4)], [a.slice(-4)], [b.slice(-4), a.slice(-4)], [a.slice(-4)]]);
  });

  it("answers every status call about an id with the account's list when told to (listForId: always)", async () => {
    h = await startHarness({ latitude: { listForId: "always" } });
    const a = (await h.create()).body.vmId as string;
    const b = (await h.create({ browser: "firefox" })).body.vmId as string;
    const asks = [];
    for (let i = 0; i < 3; i++) asks.push((await h.get(`/v8/vm/data?id=${a}`)).body.data.map((e: { id: string }) => e.id.slice(-4)));
    expect(asks).toEqual(Array(3).fill([b.slice(-4), a.slice(-4)]));
  });

  it("lists a session only some time after its start, and at most the newest ones", async () => {
    h = await startHarness({ latitude: { listLagMs: 60_000, listCap: 2 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.create()).body.vmId as string);
    expect((await h.get("/v8/vm/data")).body.data).toEqual([]);
    // Started two minutes ago and more: old enough to be listed.
    ids.forEach((id, i) => h.emu.control.setCreated(id, new Date(Date.now() - 180_000 + i * 1_000).toISOString()));
    const shown = (await h.get("/v8/vm/data")).body.data.map((e: { id: string }) => e.id.slice(-4));
    expect(shown).toEqual([ids[2]!.slice(-4), ids[1]!.slice(-4)]);
  });

  it("repeats the credentials presented in every refusal's message", async () => {
    h = await startHarness({ latitude: true });
    const wrong = await h.get("/v8/user/api", { key: "rb_wrong_key_123" });
    expect(wrong.body).toMatchObject({ status: "denied", message: "invalid API key (credentials presented: Bearer rb_wrong_key_123)" });
    const unknown = await h.post("/v8/vm/remove", { id: "vm-000000000000" });
    expect(unknown.body.message).toBe(`id: unknown session (credentials presented: Bearer ${h.emu.apiKey})`);
  });

  it("refuses for the rate alternately with HTTP 429 and Retry-After, and with HTTP 200 and no header", async () => {
    h = await startHarness({ latitude: true, rateLimit: 1 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await h.get("/v8/user/quota"));
    const refused = answers.filter((a) => a.body.status === "insecure").slice(0, 2);
    expect(refused.map((a) => [a.http, a.body.status, a.body.reason, a.headers.get("retry-after")])).toEqual([
      [429, "insecure", "rate_limited", "1"],
      [200, "insecure", "rate_limited", null],
    ]);
  });

  it("adds fields the spec does not name to answers and entries, and shows a state it does not name before starting", async () => {
    h = await startHarness({ latitude: { unnamedForMs: 60_000 } });
    h.emu.control.preparation({ paused: true });
    const created = await h.create();
    expect(created.body.served_by).toBeDefined();
    const vmId = created.body.vmId as string;
    await h.get(`/v8/vm/data?id=${vmId}`); // the first ask: the list
    const own = (await h.get(`/v8/vm/data?id=${vmId}`)).body;
    expect(own.request_id).toBeDefined();
    expect(own.data[0]).toMatchObject({ status: DEFAULT_LATITUDE.unnamedState, tags: [] });
    h.emu.control.setCreated(vmId, new Date(Date.now() - 61_000).toISOString());
    expect(await h.status(vmId)).toBe("starting");
    h.emu.control.preparation({ paused: false });
    await waitForStatus(h, vmId, "running");
  });
});
