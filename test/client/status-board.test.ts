import { describe, expect, it } from "vitest";
import { LIST_FROM, StatusBoard } from "../../client";
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
});
