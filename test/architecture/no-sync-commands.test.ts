import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * No test and no helper a test runs in its worker starts a command synchronously. A worker that waits on a
 * command synchronously answers nothing meanwhile: not the emulator it hosts (the engine's calls to it wait
 * and retry), not its file's concurrent tests (the e2e files run several stacks at once), not vitest (whose
 * version 3 failed whole runs, every test passed, when an answer waited 60 s: test/vitest-worker.test.ts).
 * release/run.ts (`run`, `runStatus`) is the asynchronous way. Kept out: the fixture that holds its worker
 * on purpose, the profile's wrapper of those functions, and this file's own examples.
 */
const root = path.resolve(__dirname, "..", "..");
const EXEMPT = new Set(["test/fixtures/sync-tests/sync.fixture.ts", "test/profile-setup.ts", "test/architecture/no-sync-commands.test.ts"]);
const SYNC_CALL = /\b(spawnSync|execFileSync|execSync)\s*\(|\b(spawnSync|execFileSync|execSync)\b[^\n]*from "node:child_process"/;

/** Every .ts file under test/. */
function testCode(): string[] {
  const files = fs
    .readdirSync(path.join(root, "test"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join("test", f));
  return files.filter((f) => !EXEMPT.has(f));
}

export function syncCommandLines(source: string): string[] {
  return source
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => SYNC_CALL.test(line));
}

describe("commands in tests", () => {
  it("finds a synchronous start of a command, and not a mention in a comment", () => {
    expect(syncCommandLines('const r = spawnSync("bash", ["-c", "x"]);')).toHaveLength(1);
    expect(syncCommandLines('import { execFileSync } from "node:child_process";')).toHaveLength(1);
    expect(syncCommandLines("  const out = cp.execSync('ls');")).toHaveLength(1);
    expect(syncCommandLines(" * a file of synchronous tests (spawnSync steps)\n// execFileSync(x) once failed")).toEqual([]);
    expect(syncCommandLines("const s = fs.readFileSync(p);")).toEqual([]);
  });

  it("no test file or helper starts one synchronously", () => {
    const files = testCode();
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => syncCommandLines(fs.readFileSync(path.join(root, f), "utf8")).map((line) => `${f}: ${line.trim()}`));
    expect(found).toEqual([]);
  });
});
