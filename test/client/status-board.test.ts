import { describe, expect, it } from "vitest";
import { FROM_LIST_FOR_MS, LIST_FROM, StatusBoard } from "../../client";
import type { SessionEntry, StatusSource } from "../../client";

/** Masks as the emulator does: the prefix and the last four characters stay visible. */
const masked = (vmId: string) => `vm-${"*".repeat(vmId.length - 7)}${vmId.slice(-4)}`;

function entry(id: string, status: SessionEntry["status"]): SessionEntry {
  return { id, status, name: "Google Chrome", created: "2026-11-26T00:00:00.000Z" } as SessionEntry;
}

/** A service holding `states`; counts its calls. */
function source(states: Record<string, SessionEntry["status"]>, extraListed: SessionEntry[] = []) {
  const calls = { turns: 0, reads: [] as string[], lists: 0 };
  const s: StatusSource = {
    turn: async () => {
      calls.turns++;
    },
    read: async (vmId) => {
      calls.reads.push(vmId);
      return states[vmId] ? entry(vmId, states[vmId]) : undefined;
    },
    list: async () => {
      calls.lists++;
      return [...Object.entries(states).map(([id, st]) => entry(masked(id), st)), ...extraListed];
    },
  };
  return { s, calls };
}

describe("StatusBoard", () => {
  it("answers many waiting sessions with one list call per tick when the list tells them apart", async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0003", "vm-aaaaaaaa0004", "vm-aaaaaaaa0005"];
    const { s, calls } = source(Object.fromEntries(ids.map((id) => [id, "starting"])));
    const board = new StatusBoard(s);
    const seen = await Promise.all(ids.map((id) => board.look(id)));
    expect(seen.map((e) => [e?.id, e?.status])).toEqual(ids.map((id) => [id, "starting"]));
    expect(calls).toEqual({ turns: 1, reads: [], lists: 1 });
  });

  it("reads on its own every session whose state would end the wait: the list only ever says 'not yet'", async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0003"];
    const { s, calls } = source({ [ids[0]]: "starting", [ids[1]]: "running", [ids[2]]: "error" });
    const board = new StatusBoard(s);
    const seen = await Promise.all(ids.map((id) => board.look(id)));
    expect(seen.map((e) => e?.status)).toEqual(["starting", "running", "error"]);
    expect(calls.lists).toBe(1);
    expect(calls.reads.sort()).toEqual([ids[1], ids[2]]);
  });

  it("reads on its own a session the masked ids do not tell apart (two listed entries agree with it, or one agrees with two)", async () => {
    // Same last four characters: each listed entry agrees with both ids.
    const twins = ["vm-aaaaaaaa0001", "vm-bbbbbbbb0001"];
    const alone = "vm-cccccccc0002";
    const { s, calls } = source({ [twins[0]]: "starting", [twins[1]]: "starting", [alone]: "starting" });
    const board = new StatusBoard(s);
    await Promise.all([...twins, alone].map((id) => board.look(id)));
    expect(calls.reads.sort()).toEqual(twins);
    // An entry of another process that agrees with a waiting id: the id has two candidates.
    const other = source({ [alone]: "starting", "vm-dddddddd0003": "starting", "vm-dddddddd0004": "starting" }, [entry("vm-********0002", "running")]);
    const board2 = new StatusBoard(other.s);
    await Promise.all([alone, "vm-dddddddd0003", "vm-dddddddd0004"].map((id) => board2.look(id)));
    expect(other.calls.reads).toEqual([alone]);
  });

  it("does not take a listed entry that agrees with two waiting ids, even when it is the only candidate of each", async () => {
    // vm-aaaaaaaa0001 is unknown to the service; the one listed entry is vm-bbbbbbbb0001's.
    const unknown = "vm-aaaaaaaa0001";
    const known = "vm-bbbbbbbb0001";
    const third = "vm-cccccccc0002";
    const { s, calls } = source({ [known]: "starting", [third]: "starting" });
    const board = new StatusBoard(s);
    const seen = await Promise.all([unknown, known, third].map((id) => board.look(id)));
    expect(seen[0]).toBeUndefined();
    expect(calls.reads.sort()).toEqual([unknown, known]);
  });

  it("reads a session that is not listed on its own, and reports the service's answer", async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0009"];
    const { s, calls } = source({ [ids[0]]: "starting", [ids[1]]: "starting" });
    const board = new StatusBoard(s);
    const seen = await Promise.all(ids.map((id) => board.look(id)));
    expect(seen[2]).toBeUndefined();
    expect(calls.reads).toEqual([ids[2]]);
  });

  it(`reads each session on its own below ${LIST_FROM} waiting, the first in the tick's turn`, async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002"].slice(0, LIST_FROM - 1);
    const { s, calls } = source(Object.fromEntries(ids.map((id) => [id, "starting"])));
    const board = new StatusBoard(s);
    await Promise.all(ids.map((id) => board.look(id)));
    expect(calls).toEqual({ turns: 1, reads: ids, lists: 0 });
  });

  it("falls back to reads when the list call fails", async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0003"];
    const { s, calls } = source(Object.fromEntries(ids.map((id) => [id, "starting"])));
    const board = new StatusBoard({ ...s, list: async () => Promise.reject(new Error("list refused")) });
    const seen = await Promise.all(ids.map((id) => board.look(id)));
    expect(seen.map((e) => e?.status)).toEqual(["starting", "starting", "starting"]);
    expect(calls.reads).toEqual(ids);
  });

  it("gathers the looks asked for while its tick waits for a turn in the budget", async () => {
    let letThrough!: () => void;
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0003", "vm-aaaaaaaa0004"];
    const { s, calls } = source(Object.fromEntries(ids.map((id) => [id, "starting"])));
    const board = new StatusBoard({ ...s, turn: () => new Promise<void>((r) => (letThrough = r)) });
    const first = board.look(ids[0]);
    await new Promise((r) => setImmediate(r));
    const later = ids.slice(1).map((id) => board.look(id));
    letThrough();
    await Promise.all([first, ...later]);
    expect(calls.lists).toBe(1);
    expect(calls.reads).toEqual([]);
  });

  it("answers a session whose own entry the list lacks from another's agreeing entry for the bound at most, then reads it, and never takes that entry's other fields", async () => {
    // The list lags: vm-aaaaaaaa0001 (running already) is not listed; vm-bbbbbbbb0001, another process's
    // session with the same visible characters, is listed as starting with its location refused.
    const mine = "vm-aaaaaaaa0001";
    const others = ["vm-cccccccc0002", "vm-cccccccc0003"];
    const impostor = { ...entry("vm-********0001", "starting"), location_applied: false, location_reason: "unavailable" } as SessionEntry;
    const reads: string[] = [];
    const s: StatusSource = {
      turn: async () => {},
      read: async (vmId) => (reads.push(vmId), entry(vmId, vmId === mine ? "running" : "starting")),
      list: async () => [impostor, ...others.map((id) => entry(masked(id), "starting"))],
    };
    let t = 0;
    const board = new StatusBoard(s, () => t);
    const seen: (SessionEntry | undefined)[] = [];
    for (; t <= FROM_LIST_FOR_MS + 1_000; t += 1_000) {
      const [e] = await Promise.all([mine, ...others].map((id) => board.look(id)));
      seen.push(e);
      if (e?.status === "running") break;
    }
    expect(seen.slice(0, -1).every((e) => e?.status === "starting" && e.location_applied === undefined)).toBe(true);
    expect(seen.at(-1)?.status).toBe("running");
    expect(t).toBeGreaterThanOrEqual(FROM_LIST_FOR_MS);
    expect(reads).toContain(mine);
  });

  it("once a read told a session's creation time, takes no listed entry created at another time", async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0003"];
    const reads: string[] = [];
    const s: StatusSource = {
      turn: async () => {},
      read: async (vmId) => (reads.push(vmId), entry(vmId, "starting")),
      // vm-aaaaaaaa0001's own entry is missing; the agreeing one was created a second later.
      list: async () => [{ ...entry("vm-********0001", "starting"), created: "2026-11-26T00:00:01.000Z" }, ...ids.slice(1).map((id) => entry(masked(id), "starting"))],
    };
    const board = new StatusBoard(s, () => 0);
    await board.look(ids[0]); // read on its own (one waiting): its creation time is now known
    reads.length = 0;
    await Promise.all(ids.map((id) => board.look(id)));
    expect(reads).toEqual([ids[0]]);
    expect(board.counts.fromList).toBe(2);
  });

  it("stops looking at the list past the oldest waiting session's creation time", async () => {
    const ids = ["vm-aaaaaaaa0001", "vm-aaaaaaaa0002", "vm-aaaaaaaa0003"];
    const at = (sec: number) => `2026-11-26T00:00:${String(sec).padStart(2, "0")}.000Z`;
    // Newest first: the three waiting sessions, then a month of older history.
    const history = Array.from({ length: 1_000 }, (_, i) => ({ ...entry(`vm-********${String(5000 + i)}`, "deleted"), created: "2026-11-01T00:00:00.000Z" }));
    const listed = [...ids.map((id, i) => ({ ...entry(masked(id), "starting"), created: at(30 - i) })), ...history];
    const s: StatusSource = {
      turn: async () => {},
      read: async (vmId) => ({ ...entry(vmId, "starting"), created: at(30 - ids.indexOf(vmId)) }),
      list: async () => listed,
    };
    const board = new StatusBoard(s, () => 0);
    await Promise.all(ids.map((id) => board.look(id)));
    const first = board.counts.scanned;
    expect(first).toBe(listed.length); // creation times not known yet: the whole list
    await Promise.all(ids.map((id) => board.look(id)));
    expect(board.counts.scanned - first).toBe(ids.length);
    expect(board.counts.fromList).toBe(2 * ids.length);
  });
});
