import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * scripts/apt-install.sh, with apt-get stood in for: test files running in parallel that each need a
 * Debian package (the PostgreSQL server, python3-venv, Maven) must install one at a time, and a service a
 * package starts must not carry the test run's marker (test/leftovers-setup.ts would take it for the run's).
 */
const script = path.resolve(__dirname, "..", "scripts", "apt-install.sh");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [script, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("scripts/apt-install.sh", () => {
  // As root (CI, and the machines the README's test command installs on) it installs; otherwise it refuses.
  it(process.getuid?.() === 0 ? "installs one package set at a time, lets apt wait for dpkg's lock, and drops the run's marker" : "without root: fails naming what it would install", async () => {
    if (process.getuid?.() !== 0) {
      const r = await run(["postgresql"], process.env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("root is needed to install postgresql");
      return;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-apt-"));
    dirs.push(dir);
    const log = path.join(dir, "log");
    // apt-get that takes a while and writes when it starts and ends, its arguments and whether it saw the marker.
    fs.writeFileSync(path.join(dir, "apt-get"), `#!/usr/bin/env bash\necho "start $$ $* marker=\${PRB_TEST_RUN:-none}" >> "${log}"\nsleep 0.3\necho "end $$" >> "${log}"\n`, { mode: 0o755 });
    const env = { ...process.env, PATH: `${dir}:${process.env.PATH}`, PRB_TEST_RUN: "marker-of-this-run", PRB_APT_LOCK: path.join(dir, "lock") };
    const results = await Promise.all([run(["postgresql"], env), run(["python3-venv"], env), run(["maven", "default-jdk-headless"], env)]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const lines = fs.readFileSync(log, "utf8").trim().split("\n");
    // update then install per caller, and no caller's apt-get starts before the previous one ended.
    expect(lines).toHaveLength(12);
    for (let i = 0; i < lines.length; i += 2) {
      expect(lines[i]).toMatch(/^start (\d+) /);
      expect(lines[i + 1]).toBe(`end ${/^start (\d+)/.exec(lines[i]!)![1]}`);
    }
    const starts = lines.filter((l) => l.startsWith("start"));
    for (const l of starts) {
      expect(l).toContain("-o DPkg::Lock::Timeout=600");
      expect(l).toContain("marker=none");
    }
    const installs = starts.filter((l) => / install /.test(l)).map((l) => l.replace(/^start \d+ /, "").replace(/ marker=none$/, ""));
    expect(installs.sort()).toEqual(
      [
        "-o DPkg::Lock::Timeout=600 -qq install -y --no-install-recommends maven default-jdk-headless",
        "-o DPkg::Lock::Timeout=600 -qq install -y --no-install-recommends postgresql",
        "-o DPkg::Lock::Timeout=600 -qq install -y --no-install-recommends python3-venv",
      ].sort(),
    );
  });

  it("without a package: usage", async () => {
    const r = await run([], process.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage: scripts/apt-install.sh PACKAGE...");
  });
});
