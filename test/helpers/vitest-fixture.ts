import { spawn } from "node:child_process";
import * as path from "node:path";

const root = path.resolve(__dirname, "..", "..");

/**
 * A vitest run of its own, with the configuration `config` (relative to the repository) and the extra
 * environment `env`: for tests of the suite's own setup, whose effect shows only in how a whole run ends.
 */
export async function runVitestFixture(config: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", config], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.once("close", r));
  return { code, out };
}
