import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { READ_ATTEMPTS, RemoteBrowserClient } from "../../client";
import { eventually, instantBudget, recordingSleep, useEmulator } from "../helpers/emulator";

/**
 * A status read takes an entry for the session asked about only when it provably is that session: the
 * answer's one entry, agreeing with the id. The latitude profile answers the first read of each id with
 * the account's whole list, newest first.
 */
const t = useEmulator({ latitude: true });

describe("reading one session's status", () => {
  it("takes the session's own entry, never a newer ended session's, when the service answers its id with the account's list", async () => {
    const client = t.client();
    const { vmId: mine } = await client.createSession({ browser: "chrome" });
    await eventually(() => t.emu.control.sessions().find((s) => s.vmId === mine)?.status === "running" || undefined);
    const { vmId: newer } = await client.createSession({ browser: "firefox" });
    await client.removeSession(newer);
    const entry = await client.session(mine);
    expect(entry?.status).toBe("running");
    expect(entry?.id.slice(-4)).toBe(mine.slice(-4));
  });

  it("fails, saying why, when every answer lists other sessions than the one asked about; an empty answer is still 'no such session'", async () => {
    let answer = {
      status: "ok",
      data: [
        { id: "vm-********beef", status: "deleted", name: "Google Chrome", created: "2026-11-26T00:00:01.000Z" },
        { id: "vm-********0001", status: "running", name: "Google Chrome", created: "2026-11-26T00:00:00.000Z" },
      ],
    };
    let calls = 0;
    const server = createServer((_req, res) => {
      calls++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const backoff = recordingSleep();
      const client = new RemoteBrowserClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v8`,
        apiKey: "rb_test_provable",
        sleep: backoff.sleep,
        now: backoff.now,
        budget: instantBudget(),
      });
      const err = await client.session("vm-aaaaaaaa0001").catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "invalid_answer", vmId: "vm-aaaaaaaa0001" });
      expect(String((err as Error).message)).toMatch(/did not list it alone \(the last: 2 entries, none provably this session\).*keeps the session as recorded/);
      expect(calls).toBe(READ_ATTEMPTS);
      // One entry that does not agree with the id is another session's too.
      answer = { status: "ok", data: [answer.data[0]!] };
      await expect(client.session("vm-aaaaaaaa0001")).rejects.toMatchObject({ code: "invalid_answer" });
      answer = { status: "ok", data: [] };
      expect(await client.session("vm-aaaaaaaa0001")).toBeUndefined();
      await client.close();
    } finally {
      server.close();
    }
  });
});
