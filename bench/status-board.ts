/**
 * The shared poll's own cost: how long one tick of the status board holds the event loop when it sets a
 * list of the account's sessions against the sessions waiting. The list and the reads are answered at once
 * from memory, so the time measured is the board's matching alone (plus, for scale, the time the list's
 * answer takes to check against its schema, which every list call pays whatever the board does).
 *
 * The account's month of history is older than every session waiting (the list is newest first); ids and
 * their masking are the emulator's (the prefix and the last four characters visible). The first tick of a
 * session knows no creation time for it yet and looks at the whole list; later ones stop at the oldest
 * waiting session.
 *
 *   npm run bench -- status-board [--listed 60000] [--waiting 400] [--ticks 5]
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { StatusBoard, sessionsAnswerSchema } from "../client";
import type { SessionEntry } from "../client";
import { median, table } from "./report";

const mask = (vmId: string) => `vm-${"*".repeat(vmId.length - 7)}${vmId.slice(-4)}`;

interface Row {
  listed: number;
  waiting: number;
  firstTickMs: number;
  laterTickMs: number;
  scannedPerLaterTick: number;
  answeredFromList: number;
  parseMs: number;
}

async function measure(listed: number, waiting: number, ticks: number): Promise<Row> {
  const start = Date.parse("2026-11-27T12:00:00.000Z");
  const ids = Array.from({ length: waiting }, () => `vm-${randomBytes(6).toString("hex")}`);
  const created = new Map(ids.map((id, i) => [id, new Date(start - i * 100).toISOString()]));
  const waitingEntries: SessionEntry[] = ids.map((id) => ({ id: mask(id), status: "starting", name: "Google Chrome", created: created.get(id)! }));
  const history: SessionEntry[] = Array.from({ length: listed - waiting }, (_, i) => ({
    id: mask(`vm-${randomBytes(6).toString("hex")}`),
    status: "deleted",
    name: "Google Chrome",
    created: new Date(start - 3_600_000 - i * 40_000).toISOString(),
  }));
  const list = [...waitingEntries, ...history];
  const board = new StatusBoard({
    turn: async () => {},
    read: async (vmId) => ({ id: mask(vmId), status: "starting", name: "Google Chrome", created: created.get(vmId)! }),
    list: async () => list,
  });
  const times: number[] = [];
  const scanned: number[] = [];
  for (let t = 0; t < ticks; t++) {
    const before = (board.counts as { scanned?: number }).scanned ?? 0;
    const t0 = performance.now();
    await Promise.all(ids.map((id) => board.look(id)));
    times.push(performance.now() - t0);
    scanned.push(((board.counts as { scanned?: number }).scanned ?? listed) - before);
  }
  const text = JSON.stringify({ status: "ok", data: list });
  const p0 = performance.now();
  sessionsAnswerSchema.parse(JSON.parse(text));
  const parseMs = performance.now() - p0;
  return {
    listed,
    waiting,
    firstTickMs: times[0]!,
    laterTickMs: median(times.slice(1)),
    scannedPerLaterTick: median(scanned.slice(1)),
    answeredFromList: board.counts.fromList,
    parseMs,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { listed: { type: "string" }, waiting: { type: "string" }, ticks: { type: "string", default: "5" } } });
  const ticks = Math.max(2, Number(values.ticks));
  const cases: Array<[number, number]> =
    values.listed || values.waiting
      ? [[Number(values.listed ?? 60_000), Number(values.waiting ?? 400)]]
      : [
          [20_000, 400],
          [60_000, 30],
          [60_000, 400],
        ];
  const rows: Row[] = [];
  for (const [listed, waiting] of cases) rows.push(await measure(listed, waiting, ticks));
  const f = (v: number) => v.toFixed(1);
  console.log(
    table(
      [
        { title: "listed" },
        { title: "waiting" },
        { title: "first tick ms" },
        { title: "later tick ms (median)" },
        { title: "entries looked at per later tick" },
        { title: `looks answered by the list (of ${ticks} ticks)` },
        { title: "list answer parse ms" },
      ],
      rows.map((r) => [String(r.listed), String(r.waiting), f(r.firstTickMs), f(r.laterTickMs), String(r.scannedPerLaterTick), String(r.answeredFromList), f(r.parseMs)]),
    ),
  );
}

void main();
