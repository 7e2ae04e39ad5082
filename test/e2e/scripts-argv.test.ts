import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator } from "../../emulator";
import { execTracer } from "./processes";

/**
 * The other programs of the repository that drive the engine -- the demo, `npm run pr:local` and the
 * benchmarks -- watched from outside as the runner is in runner-secrets.test.ts: the command line of every
 * process each one starts (the CLI, the engine's plugins, the dynamic provider) must hold no API key.
 * They run as built (dist/), with small settings, each in a working folder of its own under .work/, as
 * their defaults are.
 */
const root = path.resolve(__dirname, "..", "..");
/** Every key the emulator makes looks like this (emulator/index.ts); the demo's and the benchmarks' are made inside them. */
const EMULATOR_KEY = /rb_test_[0-9a-f]{8,}/;
let work: string;

beforeAll(() => {
  for (const script of ["scripts/demo.js", "scripts/pr-local.js", "bench/run.js"]) {
    if (!fs.existsSync(path.join(root, "dist", script))) throw new Error(`dist/${script} is missing: build first (npx tsc -p tsconfig.json)`);
  }
  fs.mkdirSync(path.join(root, ".work"), { recursive: true });
  work = fs.mkdtempSync(path.join(root, ".work", "e2e-scripts-"));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Runs a built script of the repository and keeps the command line of each process it started. */
async function watched(script: string, args: string[], extraEnv: Record<string, string> = {}) {
  const env = { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: inject("e2e").pulumiBin, ...extraEnv };
  const tracer = await execTracer();
  try {
    const [command, ...before] = [...tracer.prefix, process.execPath];
    const child = spawn(command!, [...before, path.join(root, "dist", script), ...args], { cwd: root, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    // The script's own command line is the first the tracer saw.
    return { code, stdout, stderr, commandLines: tracer.commandLines() };
  } finally {
    tracer.dispose();
  }
}

function expectNoKey(run: Awaited<ReturnType<typeof watched>>, key?: string): void {
  expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
  for (const c of run.commandLines) {
    expect(EMULATOR_KEY.test(c), `an API key in the command line of: ${c}`).toBe(false);
    if (key) expect(c.includes(key), `the API key in the command line of: ${c}`).toBe(false);
  }
  // Not vacuous: the engine ran, and the watcher saw it and the dynamic provider.
  const seenText = `command lines seen:\n${run.commandLines.join("\n")}`;
  expect(
    run.commandLines.some((c) => /pulumi(\s|$)/.test(c)),
    seenText,
  ).toBe(true);
  expect(
    run.commandLines.some((c) => /dynamic-provider|pulumi-resource-pulumi-nodejs/.test(c)),
    seenText,
  ).toBe(true);
}

describe("no script that starts the runner puts a secret on a command line", () => {
  it("the demo: up, destroy and rm of its stack against its own emulator", async () => {
    const run = await watched("scripts/demo.js", ["--prep-ms", "100", "--state-dir", path.join(work, "demo")]);
    expectNoKey(run);
    expect(run.stdout).toContain("No session is left running.");
  });

  it("pr:local: a pull request deployed and closed against a service given by --base-url, its key in the environment", async () => {
    const emulator = await startEmulator({ prepMs: 100 });
    try {
      const common = ["--pr", "7", "--base-url", emulator.apiBaseUrl, "--state-dir", path.join(work, "pr-local")];
      const env = { REMOTE_BROWSER_API_KEY: emulator.apiKey };
      const deploy = await watched("scripts/pr-local.js", [...common, "--preview-url", "https://example.com/pr/7"], env);
      expectNoKey(deploy, emulator.apiKey);
      expect(emulator.control.books().running).toBeGreaterThan(0);
      const close = await watched("scripts/pr-local.js", [...common, "--close"], env);
      expectNoKey(close, emulator.apiKey);
      expect(emulator.control.books().neverEnded).toBe(0);
    } finally {
      await emulator.close();
    }
  });

  it("the benchmarks: the scale runs (up, destroy and rm of one-session stacks through the runner)", async () => {
    const run = await watched("bench/run.js", ["--only", "scale", "--quick", "--counts", "1", "--work-dir", path.join(work, "bench")]);
    expectNoKey(run);
    expect(run.stdout).toMatch(/sessions/);
  });
});
