import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { kindOf } from "./helpers/profile";

import { runVitestFixture } from "./helpers/vitest-fixture";
import { runStatus } from "../release/run";

/**
 * The report of where each test file's time went (test/profile-setup.ts writes it, scripts/test-summary.js
 * prints it): what decides on what to cut next, so it must say what it claims.
 */
const root = path.resolve(__dirname, "..");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("kindOf", () => {
  it("sorts the commands tests start into the engine, builds, installs and other", () => {
    const runner = "/tmp/p/node_modules/pulumi-remote-browser/dist/runner/cli.js";
    expect(kindOf("/cache/engine/v3.248.0/bin/pulumi", ["pulumi", "up"])).toBe("engine");
    expect(kindOf("/usr/bin/node", ["node", runner, "up"])).toBe("engine");
    expect(kindOf("bash", ["bash", "/repo/scripts/pr-local.sh", "--sequence"])).toBe("engine");
    expect(kindOf("/usr/bin/node", ["node", "/repo/dist/scripts/demo.js"])).toBe("engine");
    expect(kindOf("/usr/bin/node", ["node", "/repo/dist/bench/overhead.js", "--runs", "1"])).toBe("engine");
    expect(kindOf("npm", ["npm", "install", "--prefer-offline", "/tmp/x.tgz"])).toBe("install");
    expect(kindOf("npm", ["npm", "run", "demo"])).toBe("other");
    expect(kindOf("bash", ["bash", "/repo/scripts/python-venv.sh", "pulumi==3.248.0"])).toBe("install");
    expect(kindOf("/venv/bin/python", ["python", "-m", "pip", "install", "--target", "site"])).toBe("install");
    expect(kindOf("/cache/python/venv-0123/bin/python", ["python", "/repo/test/e2e/programs/component-python/run.py", "req.json"])).toBe("engine");
    expect(kindOf("python3", ["python3", "-m", "compileall", "-q", "pkg"])).toBe("other");
    expect(kindOf("go", ["go", "build", "./..."])).toBe("build");
    expect(kindOf("mvn", ["mvn", "-B", "-q", "compile"])).toBe("build");
    expect(kindOf("/cache/sdkgen-0123456789abcdef", ["sdkgen", "schema.json", "out", "go"])).toBe("build");
    expect(kindOf("/usr/bin/node", ["node", "/repo/node_modules/typescript/bin/tsc", "-p", "tsconfig.json"])).toBe("build");
    expect(kindOf("git", ["git", "status"])).toBe("other");
  });
});

describe("scripts/test-summary.js with a profile folder", () => {
  it("prints each slow file's wall and CPU time, the time a command of each kind ran (overlaps once), and its waits outside commands", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-profile-"));
    dirs.push(dir);
    const file = path.join(dir, "test", "a.test.ts");
    const report = {
      numPassedTests: 1,
      numFailedTests: 0,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [{ name: file, startTime: 0, endTime: 1500, status: "passed", message: "", assertionResults: [{ fullName: "t", status: "passed", failureMessages: [] }] }],
    };
    fs.writeFileSync(path.join(dir, "r.json"), JSON.stringify(report));
    fs.mkdirSync(path.join(dir, "profile"));
    const profile = {
      file,
      wallMs: 1500,
      cpuMs: 700,
      commands: [
        { kind: "engine", start: 0, end: 600 },
        { kind: "engine", start: 400, end: 1000 },
        { kind: "install", start: 1200, end: 1500 },
      ],
      // Waits while a command ran are the command's; only 1000-1200 is the test's own.
      timers: [{ start: 900, end: 1300 }],
      holds: [{ test: "builds twice", ms: 7_200 }],
    };
    fs.writeFileSync(path.join(dir, "profile", "1-a.test.ts.json"), JSON.stringify(profile));
    const run = await runStatus(process.execPath, [path.join(root, "scripts/test-summary.js"), "r.json", "run.log", "0", "failures.txt", "profile"], { cwd: dir });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/wall +cpu +engine +build +install +other +waits/);
    expect(run.stdout).toContain("    1.5     0.7     1.0     0.0     0.3     0.0     0.2  test/a.test.ts");
    expect(run.stdout).toContain("all files: cpu 1 s; wall with a command running (summed over files): engine 1 s, build 0 s, install 0 s, other 0 s");
    expect(run.stdout).toContain("event loop held for 5 s or more:\n      7.2  test/a.test.ts > builds twice");
  });
});

describe("test/profile-setup.ts in a test file's worker", () => {
  it("records each time a test held the event loop for 5 s or more, naming the test, and not a wait on a timer", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-profile-"));
    dirs.push(dir);
    const run = await runVitestFixture("test/fixtures/loop-hold/vitest.config.mts", { PRB_PROFILE_DIR: dir });
    expect(run.code, run.out).toBe(0);
    const [written] = fs.readdirSync(dir);
    const profile = JSON.parse(fs.readFileSync(path.join(dir, written!), "utf8")) as { holds: Array<{ test: string; ms: number }> };
    expect(profile.holds.map((h) => h.test)).toEqual(["holds its event loop for 5.5 s"]);
    expect(profile.holds[0]!.ms).toBeGreaterThanOrEqual(5_000);
  }, 120_000);
});
