import * as childProcess from "node:child_process";
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { cpuMs, kindOf } from "./helpers/profile";

/**
 * Where each test file's time goes, for the report scripts/test.sh prints (scripts/test-summary.js): every
 * command the file's process starts, by kind (the engine, builds, installs, other), with its wall time; the
 * timers that fired in the process (the waits); the CPU the process and every child it waited for used; and
 * each time the process held its event loop for 5 s or more, with the test that held it (a held worker answers
 * nothing: not the emulators it hosts, not its file's concurrent tests; test/architecture/no-sync-commands.test.ts).
 * Wall time on a shared machine says little on its own; CPU says what the file costs. Written only when
 * scripts/test.sh names a folder for it (PRB_PROFILE_DIR): `npx vitest` on its own does not profile.
 */
interface Interval {
  start: number;
  end: number;
}

const dir = process.env.PRB_PROFILE_DIR;
if (dir) {
  const commands: Array<Interval & { kind: string }> = [];
  const timers: Interval[] = [];
  const started = Date.now();
  let file = "";

  // Every asynchronous child process (spawn, execFile, exec, fork) goes through ChildProcess#spawn.
  const proto = childProcess.ChildProcess.prototype as unknown as { spawn(o: { file: string; args: string[] }): unknown };
  const spawnAsync = proto.spawn;
  proto.spawn = function (this: childProcess.ChildProcess, options) {
    const entry = { kind: kindOf(options.file, options.args), start: Date.now(), end: 0 };
    commands.push(entry);
    this.once("exit", () => (entry.end = Date.now()));
    return spawnAsync.call(this, options);
  };
  // The synchronous ones do not; the module's exports are wrapped and its ESM view synchronised with them.
  const mod = createRequire(__filename)("node:child_process") as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ["spawnSync", "execFileSync", "execSync"]) {
    const original = mod[name]!;
    mod[name] = function (this: unknown, command: unknown, ...rest: unknown[]) {
      const args = Array.isArray(rest[0]) ? (rest[0] as string[]) : [];
      const entry = { kind: kindOf(String(command), [String(command), ...args]), start: Date.now(), end: 0 };
      commands.push(entry);
      try {
        return original.call(this, command, ...rest);
      } finally {
        entry.end = Date.now();
      }
    };
  }
  syncBuiltinESMExports();

  // A timer that fires is a wait: a sleep, a poll, a delay of the emulator's. Short ones (turns of the event
  // loop, vitest's own) are left out.
  const setTimer = globalThis.setTimeout;
  globalThis.setTimeout = function (this: unknown, callback: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) {
    if (typeof callback !== "function" || !ms || ms < 20) return setTimer(callback, ms, ...args);
    const start = Date.now();
    return setTimer(
      (...a: unknown[]) => {
        timers.push({ start, end: Date.now() });
        callback(...a);
      },
      ms,
      ...args,
    );
  } as typeof setTimeout;
  // util.promisify(setTimeout) resolves through this; without it the promisified wrapper would never resolve.
  Object.defineProperty(globalThis.setTimeout, promisify.custom, { value: (setTimer as unknown as Record<symbol, unknown>)[promisify.custom] });

  // A beat every quarter second: a beat late by seconds is a time the loop was held. Checked at the end of
  // each test too, which may come before the late beat does.
  const holds: Array<{ test: string; ms: number }> = [];
  let test = "(outside tests)";
  let last = { at: Date.now(), test };
  const BEAT_MS = 250;
  const beat = () => {
    const now = Date.now();
    const held = now - last.at - BEAT_MS;
    if (held >= 5_000) holds.push({ test: last.test === test ? test : `${last.test} .. ${test}`, ms: held });
    last = { at: now, test };
  };
  setInterval(beat, BEAT_MS).unref();
  beforeEach((context) => {
    beat();
    test = last.test = context.task.name;
  });
  afterEach(() => {
    beat();
    test = "(between tests)";
  });

  // vitest 4 gives the suite as the hook's second argument; the first, its fixtures, must be a pattern.
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a hook asks for from this pattern
  beforeAll(({}, suite) => {
    file = (suite as { filepath?: string }).filepath ?? "";
  });
  afterAll(() => {
    beat();
    const now = Date.now();
    const profile = {
      file,
      wallMs: now - started,
      cpuMs: cpuMs(),
      commands: commands.map((c) => ({ ...c, end: c.end || now })),
      timers,
      holds,
    };
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${process.pid}-${path.basename(file)}.json`), JSON.stringify(profile));
  });
}
