import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * No test and no helper a test runs in its worker starts a command synchronously. vitest's worker waits for
 * each answer of its main process with a fixed 60 s timer (no setting changes it), and a worker that holds
 * its event loop that long -- a few synchronous builds or workflow steps on a loaded 2-core machine -- fails
 * the whole run with `Timeout calling "onTaskUpdate"` and every test passed. release/run.ts (`run`,
 * `runStatus`) is the asynchronous way. Kept out: the fixture that reproduces that failure on purpose,
 * the profile's wrapper of those functions, and this file's own examples.
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
