import { describe, expect, it } from "vitest";
import type { RemoteBrowserClient } from "../../client";
import type { FaultOperation } from "../../emulator";
import { thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

/**
 * Every read the client makes may be asked again: a transient service fault is ridden out with the
 * policy's backoff, under both API versions. Creates are covered where their keys are (a version 7
 * create has no key, so it is never asked again).
 */
const READS: Array<[string, Exclude<FaultOperation, "*">, (c: RemoteBrowserClient, vmId: string) => Promise<unknown>]> = [
  ["images", "image", (c) => c.images()],
  ["a session's status", "status", (c, vmId) => c.session(vmId)],
  ["the session list", "list", (c) => c.sessions()],
  ["the account", "account", (c) => c.account()],
  ["the quota", "quota", (c) => c.quota()],
  ["the account (v7)", "v7account", (c) => c.v7.account()],
  ["the quota (v7)", "v7quota", (c) => c.v7.quota()],
];

describe("reads are retried after a transient service fault", () => {
  for (const [name, operation, read] of READS) {
    it(`reads ${name} after two service errors`, async () => {
      const client = t.client();
      const { vmId } = await client.createSession({ browser: "chrome" });
      t.emu.control.fault({ operation, kind: "error", count: 2 });
      await read(client, vmId);
      const calls = t.requests(operation);
      expect(calls.map((r) => r.fault ?? "answered")).toEqual(["error", "error", "answered"]);
      expect(t.backoff).toHaveLength(2);
    });
  }

  it("never asks a version 7 create again: a repeat could start a second session", async () => {
    t.emu.control.fault({ operation: "v7create", kind: "error", count: 1 });
    const err = await thrown(() => t.client().v7.createSession({ browser: "chrome" }));
    expect(err).toMatchObject({ code: "service" });
    expect(t.requests("v7create")).toHaveLength(1);
    expect(t.emu.control.books().started).toBe(0);
  });
});
