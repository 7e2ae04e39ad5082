import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_MARKER_VAR, findLeftovers, reapLeftovers } from "./helpers/leftovers";
import { isRunning, processInfo } from "./helpers/processes";
import { runVitestFixture } from "./helpers/vitest-fixture";

/**
 * The check that fails a test run which leaves a process running (test/leftovers-setup.ts), against
 * processes planted the way a killed engine leaves its plugins: started by a parent that is gone since,
 * re-parented, idle for good.
 */
const planted: number[] = [];
afterEach(() => {
  for (const pid of planted.splice(0)) if (isRunning(pid)) process.kill(pid, "SIGKILL");
});

/** Starts an idle process through a shell that exits at once, and returns the orphan's pid. */
async function plantOrphan(opts: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<number> {
  const shell = spawn("sh", ["-c", `"${process.execPath}" -e "setInterval(() => undefined, 1 << 30)" </dev/null >/dev/null 2>&1 & echo $!`], {
    env: opts.env,
    cwd: opts.cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  shell.stdout!.on("data", (d) => (out += d));
  await new Promise((r) => shell.once("close", r));
  const pid = Number(out.trim());
  planted.push(pid);
  expect(isRunning(pid)).toBe(true);
  expect(processInfo(pid)!.ppid).not.toBe(shell.pid);
  return pid;
}

const marker = () => randomBytes(6).toString("hex");

describe("the check for processes a test run left behind", () => {
  it("reports a re-parented process that carries the run's marker, and kills it", async () => {
    const run = marker();
    const stray = await plantOrphan({ env: { ...process.env, [RUN_MARKER_VAR]: run } });
    expect(findLeftovers({ marker: run }).map((p) => p.pid)).toEqual([stray]);
    const reaped = await reapLeftovers({ marker: run }, 0);
    expect(reaped.map((p) => p.pid)).toEqual([stray]);
    for (let i = 0; isRunning(stray) && i < 200; i++) await new Promise((r) => setTimeout(r, 50));
    expect(isRunning(stray)).toBe(false);
  });

  it("reports a process working in a folder of the run, started with an environment of its own, after the folder is removed", async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-leftovers-"));
    const work = path.join(base, "stacks", "s1");
    fs.mkdirSync(work, { recursive: true });
    const stray = await plantOrphan({ env: { PATH: process.env.PATH }, cwd: work });
    fs.rmSync(base, { recursive: true, force: true });
    expect(processInfo(stray)!.cwd).toBe(`${work} (deleted)`);
    expect(findLeftovers({ marker: marker(), folders: [base] }).map((p) => p.pid)).toEqual([stray]);
  });

  it("leaves alone another run's processes, this process and its ancestors", async () => {
    const other = await plantOrphan({ env: { ...process.env, [RUN_MARKER_VAR]: marker() } });
    expect(findLeftovers({ marker: marker() }).map((p) => p.pid)).not.toContain(other);
    // This process and the ones that started it work in the repository folder too.
    const found = findLeftovers({ marker: marker(), folders: [process.cwd()] }).map((p) => p.pid);
    expect(found).not.toContain(process.pid);
    expect(found).not.toContain(process.ppid);
  });
});

describe("the check for files a test run left in its temporary folder", () => {
  /** A run of test/fixtures/left-files with the suite's global setup. */
  async function fixtureRun(leave?: string): Promise<{ code: number | null; out: string; runTmp: string }> {
    const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "prb-left-files-")), "tmpdir");
    const { code, out } = await runVitestFixture("test/fixtures/left-files/vitest.config.mts", { PRB_FIXTURE_REPORT: report, PRB_FIXTURE_LEAVE: leave ?? "" });
    const runTmp = fs.readFileSync(report, "utf8");
    fs.rmSync(path.dirname(report), { recursive: true, force: true });
    return { code, out, runTmp };
  }

  it("fails the run naming what was left, keeps compiler caches out of it, and removes the folder", async () => {
    const left = await fixtureRun("automation-logs-up-");
    expect(left.code, left.out).toBe(1);
    expect(left.out).toContain("the run left 1 file(s) or folder(s) in its temporary folder");
    expect(left.out).toMatch(/prb-test-run-\w+\/automation-logs-up-\w+/);
    expect(left.out).not.toContain("ts-node-0123abcd");
    expect(fs.existsSync(left.runTmp)).toBe(false);

    const clean = await fixtureRun();
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).not.toContain("the run left");
    expect(fs.existsSync(clean.runTmp)).toBe(false);
  }, 60_000);
});
