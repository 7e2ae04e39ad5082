import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";
import { automationCommand } from "../engine-conventions/sdkInternals";
import { executableOnPath } from "./environment";

/**
 * The CLI a workspace drives. Left to itself, the Automation API starts `pulumi version` for every workspace
 * it makes, to learn which CLI it drives: one CLI start (about 0.15 s of CPU, a tenth of a small update) for
 * every action of the runner. A binary's version does not change while the binary does not, so the runner
 * asks it once and keeps the answer in its state folder, under the binary's identity (its real path, device,
 * inode, size and modification and change times): a CLI upgraded in place, or another CLI at the same path,
 * is asked again.
 */
export async function pulumiCommandFor(stateDir: string, env: Record<string, string>): Promise<PulumiCommand> {
  // The command stays `pulumi`, found on the PATH of the run as the SDK finds it; the binary asked and
  // identified is the one that name finds there.
  const bin = executableOnPath("pulumi", env.PATH ?? process.env.PATH ?? "");
  const identity = bin && identityOf(bin);
  if (!bin || !identity) return PulumiCommand.get({ skipVersionCheck: true });
  const file = path.join(stateDir, "cli-version.json");
  let version = readKept(file, identity);
  if (!version) {
    version = await askVersion(bin, env);
    keep(file, identity, version);
  }
  return automationCommand(PulumiCommand, "pulumi", version) ?? (await PulumiCommand.get({ skipVersionCheck: true }));
}

function identityOf(bin: string): string | undefined {
  try {
    const real = fs.realpathSync(bin);
    const s = fs.statSync(real);
    return JSON.stringify([real, s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs]);
  } catch {
    return undefined;
  }
}

function readKept(file: string, identity: string): string | undefined {
  try {
    const kept = JSON.parse(fs.readFileSync(file, "utf8")) as { identity?: unknown; version?: unknown };
    return kept.identity === identity && typeof kept.version === "string" ? kept.version : undefined;
  } catch {
    return undefined;
  }
}

function keep(file: string, identity: string, version: string): void {
  // Runs of several stacks share the folder: each writes whole files, renamed into place.
  const next = `${file}.${process.pid}`;
  try {
    fs.writeFileSync(next, JSON.stringify({ identity, version }) + "\n", { mode: 0o600 });
    fs.renameSync(next, file);
  } catch {
    fs.rmSync(next, { force: true });
  }
}

/** `pulumi version`, as the SDK reads it: the first line, without a leading "v". */
function askVersion(bin: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(bin, ["version"], { env: { ...process.env, ...env, PULUMI_SKIP_UPDATE_CHECK: "true" } }, (err, stdout, stderr) => {
      const version = String(stdout).trim().replace(/^v/, "");
      if (err || !version) reject(new Error(`${bin} version failed: ${String(stderr).trim() || err?.message || "no output"}`));
      else resolve(version);
    }),
  );
}
