import * as fs from "node:fs";

/**
 * CPU of this process and of every child process it waited for (theirs include their own children's), in
 * ms: what a test file or a setup cost, which a loaded machine distorts far less than wall time.
 */
export function cpuMs(): number {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime, stime, cutime, cstime: fields 14-17 of proc(5), in clock ticks (100 per second on Linux).
  return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) * 10;
}
