import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCommand } from "../../release/run";

const ROOT = resolve(__dirname, "../..");
let cliPath = join(ROOT, "dist/emulator/cli.js");
let tempBuild: string | undefined;
const children: ChildProcessWithoutNullStreams[] = [];

/** The built CLI is used when it is newer than every emulator source; otherwise the emulator is built alone. */
function builtCliIsFresh(): boolean {
  if (!existsSync(cliPath)) return false;
  const built = statSync(cliPath).mtimeMs;
  const sources = readdirSync(join(ROOT, "emulator")).filter((f) => f.endsWith(".ts"));
  return sources.every((f) => statSync(join(ROOT, "emulator", f)).mtimeMs <= built);
}

beforeAll(async () => {
  if (builtCliIsFresh()) return;
  tempBuild = mkdtempSync(join(tmpdir(), "emulator-cli-"));
  const config = join(tempBuild, "tsconfig.json");
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(ROOT, "tsconfig.json"),
      compilerOptions: { outDir: join(tempBuild, "out"), rootDir: ROOT, declaration: false, typeRoots: [join(ROOT, "node_modules/@types")] },
      include: [join(ROOT, "emulator/**/*.ts")],
    }),
  );
  await runCommand(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config], { cwd: ROOT });
  cliPath = join(tempBuild, "out/emulator/cli.js");
}, 60_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  if (tempBuild) rmSync(tempBuild, { recursive: true, force: true });
});

function run(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [cliPath, ...args], { cwd: ROOT });
  children.push(child);
  return child;
}

function untilReady(child: ChildProcessWithoutNullStreams): Promise<string[]> {
  return new Promise((resolvePromise, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (/^READY$/m.test(out)) resolvePromise(out.trim().split("\n"));
    });
    child.on("exit", (code) => reject(new Error(`exited with ${code} before READY: ${out}`)));
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise) => {
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => resolvePromise({ code, stderr }));
  });
}

describe("emulator CLI", () => {
  it("starts with the documented flags, prints its URLs and READY, and serves the given key", async () => {
    const child = run(["--port", "0", "--api-key", "rb_cli_key", "--running-limit", "2", "--cycle-limit", "7", "--prep-ms", "20", "--rate-limit", "50", "--share-port", "0", "--host", "127.0.0.1"]);
    const lines = await untilReady(child);
    expect(lines.at(-1)).toBe("READY");
    const api = /^API base URL: (http:\/\/127\.0\.0\.1:\d+\/v8)$/m.exec(lines.join("\n"))?.[1];
    expect(api).toBeDefined();
    expect(lines.join("\n")).toMatch(/^v7 base URL: http:\/\/127\.0\.0\.1:\d+\/v7$/m);
    expect(lines.join("\n")).toMatch(/^Share base: http:\/\/127\.0\.0\.1:\d+$/m);
    expect(lines.join("\n")).toMatch(/^Control: http:\/\/127\.0\.0\.1:\d+\/_emulator$/m);
    expect(lines.join("\n")).not.toContain("rb_cli_key");
    const res = await fetch(`${api}/user/quota`, { headers: { authorization: "Bearer rb_cli_key" } });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "ok", running_session_limit: 2, cycle_session_limit: 7 });

    const exited = exitOf(child);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });

  it("stops cleanly on SIGINT", async () => {
    const child = run(["--port", "0", "--api-key", "rb_cli_int"]);
    await untilReady(child);
    const exited = exitOf(child);
    child.kill("SIGINT");
    expect((await exited).code).toBe(0);
  });

  it("prints a generated key when none is given", async () => {
    const child = run([]);
    const lines = await untilReady(child);
    expect(lines.join("\n")).toMatch(/^API key: rb_test_[0-9a-f]{32}$/m);
    const exited = exitOf(child);
    child.kill("SIGTERM");
    await exited;
  });

  it.each([
    [["--port", "abc"], /--port/],
    [["--port", "70000"], /--port/],
    [["--running-limit"], /missing value/],
    [["--bogus", "1"], /unknown option --bogus/],
    [["stray"], /unexpected argument/],
    [["--cycle-limit", "-1"], /--cycle-limit/],
    [["--host", "0.0.0.0"], /--host 0\.0\.0\.0: not a loopback address.*--allow-remote/],
    [["--host", "192.0.2.1", "--port", "0"], /not a loopback address/],
  ])("exits with code 2 and a message for bad arguments %j", async (args, message) => {
    const child = run(args as string[]);
    const { code, stderr } = await exitOf(child);
    expect(code).toBe(2);
    expect(stderr).toMatch(message as RegExp);
    expect(stderr).toMatch(/usage:/);
  });

  it("serves other hosts with --allow-remote, and says so on stderr", async () => {
    const child = run(["--port", "0", "--api-key", "rb_cli_remote", "--host", "0.0.0.0", "--allow-remote"]);
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const lines = await untilReady(child);
    expect(stderr).toMatch(/^warning: --allow-remote: .*control surface/m);
    const port = /^API base URL: http:\/\/0\.0\.0\.0:(\d+)\/v8$/m.exec(lines.join("\n"))?.[1];
    expect(port).toBeDefined();
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolvePromise, reject) => {
      const req = request({ host: "127.0.0.1", port: Number(port), path: "/v8/image", headers: { host: "emulator.example.test" } }, (res) => {
        res.resume();
        resolvePromise(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(200);
    const exited = exitOf(child);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
  });
});
