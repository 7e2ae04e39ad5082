import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inject } from "vitest";

/*
 * Processes seen from outside, for the e2e tests: what every descendant of a process showed on its command
 * line (any local user can read it), and the installed runner run directly.
 */

/**
 * Records the command line of every program a process and all its descendants execute, as any local user
 * could have read it in /proc/<pid>/cmdline while it ran: the process is started under strace (the prefix
 * to put before its command), which stops only at execve and writes each program's arguments, however
 * briefly it runs. Polling /proc instead kept a core busy and could miss a process that lived between two
 * looks.
 */
export async function execTracer(): Promise<{ prefix: string[]; commandLines(): string[]; dispose(): void }> {
  const bin = await strace();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-exec-trace-"));
  const prefix = [bin, "-f", "-ff", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-e", "signal=none", "-s", "1048576", "-o", path.join(dir, "exec"), "--"];
  return {
    prefix,
    commandLines: () => fs.readdirSync(dir).flatMap((f) => executed(fs.readFileSync(path.join(dir, f), "utf8"))),
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

let stracePath: Promise<string> | undefined;
function strace(): Promise<string> {
  stracePath ??= new Promise((resolve, reject) =>
    execFile("bash", [path.join(__dirname, "..", "..", "scripts", "strace.sh")], (err, stdout, stderr) =>
      err ? reject(new Error(`scripts/strace.sh failed: ${String(stderr).trim() || err.message}`)) : resolve(String(stdout).trim()),
    ),
  );
  return stracePath;
}

/** The command lines of the successful execve calls in one process's strace output, arguments joined by spaces. */
export function executed(trace: string): string[] {
  const lines: string[] = [];
  for (const line of trace.split("\n")) {
    const m = /^execve\("(?:[^"\\]|\\.)*", \[(.*)\], 0x[0-9a-f]+(?: \/\* \d+ vars \*\/)?\) = 0$/.exec(line);
    if (m) lines.push([...m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => unescapeC(a[1]!)).join(" "));
  }
  return lines;
}

/** Undoes strace's C escapes (a backslash before a character, a hex or an octal byte) of a UTF-8 string. */
function unescapeC(s: string): string {
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", v: "\v", f: "\f" };
  // Bytes first (strace writes every byte outside printable ASCII escaped), then UTF-8.
  const bytes = s.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, e: string) =>
    e[0] === "x" ? String.fromCharCode(parseInt(e.slice(1), 16)) : /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8)) : (simple[e] ?? e),
  );
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** Runs the installed runner CLI directly, with exactly the environment given. */
export function runRunner(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const { projectDir } = inject("e2e");
  const cli = path.join(projectDir, "node_modules", "pulumi-remote-browser", "dist", "runner", "cli.js");
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
