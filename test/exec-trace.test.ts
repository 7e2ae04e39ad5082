import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { execTracer, executed } from "./e2e/processes";

/**
 * The tracer the e2e tests keep secrets off command lines with (test/e2e/processes.ts): it must see every
 * program every descendant executes, however short-lived, with its arguments exactly as they were.
 */
async function traced(command: string, args: string[]): Promise<string[]> {
  const tracer = await execTracer();
  const [bin, ...before] = [...tracer.prefix, command];
  const child = spawn(bin!, [...before, ...args], { stdio: "ignore" });
  return new Promise<string[]>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        if (code !== 0) throw new Error(`traced command exited with ${code}`);
        resolve(tracer.commandLines());
      } catch (e) {
        reject(e);
      } finally {
        tracer.dispose();
      }
    });
  });
}

describe("the exec tracer", () => {
  it("sees the program started and every descendant's, the briefest among them, with their arguments as given", async () => {
    const odd = `rb_test_0123abcd "quoted" back\\slash\ttab\nnewline é`;
    const seen = await traced("bash", ["-c", 'for i in 1 2 3; do /bin/true "$1" "$i"; done; (/bin/echo grandchild "$1" >/dev/null &); wait', "script", odd]);
    expect(seen[0]).toBe(`bash -c for i in 1 2 3; do /bin/true "$1" "$i"; done; (/bin/echo grandchild "$1" >/dev/null &); wait script ${odd}`);
    for (const i of ["1", "2", "3"]) expect(seen).toContain(`/bin/true ${odd} ${i}`);
    expect(seen).toContain(`/bin/echo grandchild ${odd}`);
  });

  it("reads only execve calls that succeeded", () => {
    const trace = [
      'execve("/usr/local/bin/pulumi", ["pulumi", "up"], 0x7ffd1e2ae988 /* 35 vars */) = -1 ENOENT (No such file or directory)',
      'execve("/usr/bin/pulumi", ["pulumi", "up", "a\\"b\\\\c\\x41\\101"], 0x7ffd1e2ae988 /* 35 vars */) = 0',
    ].join("\n");
    expect(executed(trace)).toEqual(['pulumi up a"b\\cAA']);
  });
});
