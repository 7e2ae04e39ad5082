import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Pulumi's own SDK code generators (test/e2e/programs/component-python/sdkgen.go: Python, Node.js and Go),
 * built once per source and module set into the cache outside the repository, the engine's go.sum pinning
 * the modules. What `pulumi package add` has a language host run, for machines without those hosts.
 */
const root = path.resolve(__dirname, "..", "..");

export function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { ...opts, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(" ")} failed: ${err.message}\n${stderr}\n${stdout.slice(-4000)}`)) : resolve(stdout),
    ),
  );
}

/** The path of the code generator, built when missing. */
export async function sdkgen(scratch: string): Promise<string> {
  const gen = fs.readFileSync(path.join(__dirname, "programs", "component-python", "sdkgen.go"));
  const sum = fs.readFileSync(path.join(root, "engine", "go.sum"));
  const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-remote-browser");
  const bin = path.join(cache, `sdkgen-${createHash("sha256").update(gen).update(sum).digest("hex").slice(0, 16)}`);
  if (fs.existsSync(bin)) return bin;
  const mod = fs.mkdtempSync(path.join(scratch, "sdkgen-"));
  fs.writeFileSync(path.join(mod, "go.mod"), fs.readFileSync(path.join(root, "engine", "go.mod"), "utf8").replace(/^module .*$/m, "module sdkgen"));
  fs.writeFileSync(path.join(mod, "go.sum"), sum);
  fs.writeFileSync(path.join(mod, "main.go"), gen);
  fs.mkdirSync(cache, { recursive: true });
  const tmp = `${bin}.tmp-${process.pid}`;
  await run("go", ["build", "-o", tmp, "."], { cwd: mod, env: { ...process.env, GOFLAGS: "-mod=mod" } });
  fs.renameSync(tmp, bin); // atomic: a parallel run builds its own and renames over the same
  return bin;
}
