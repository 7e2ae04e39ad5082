import * as fs from "node:fs";
import * as path from "node:path";

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

/**
 * What a command is, for the report: the engine (the CLI, the runner that drives it, its plugins and hosts),
 * a build (compilers, code generators), an install (npm, pip, venvs), or other.
 */
export function kindOf(file: string, args: string[]): "engine" | "build" | "install" | "other" {
  const line = [file, ...args.slice(1)].join(" ");
  const base = path.basename(file);
  // The runner, the repository's programs that run it (pr-local, the demo, the benchmarks) and the test programs
  // of other languages' Automation APIs are the engine at work.
  if (/^pulumi(-language-|-resource-|$)/.test(base) || /[\\/]runner[\\/]cli\.js\b|(scripts[\\/](pr-local|demo)|bench[\\/][\w-]+)\.(sh|ts|js)\b|[\\/]programs[\\/]\S+\.py\b/.test(line)) return "engine";
  if (/^(npm|npx)$/.test(base) || /npm-cli\.js/.test(line)) return /\b(install|ci|pack)\b/.test(line) ? "install" : "other";
  if (/^pip3?$/.test(base) || /-m (pip|venv)\b|python-venv\.sh/.test(line)) return "install";
  if (/^(go|tsc|dotnet|mvn|javac|sdkgen(-.*)?)$/.test(base) || /\btsc\b|build\.sh|go-build\.sh/.test(line)) return "build";
  return "other";
}
