import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Which backend the engine that started this process keeps the stack in, as a digest: what tells apart two
 * stacks of the same project and name on two backends. A dynamic provider has no other per-stack value it
 * can rely on: its host answers CheckConfig "not implemented", so nothing random can be recorded for the
 * stack before its first session is created, and a killed update's pending create is gone after
 * `pulumi refresh --clear-pending-creates`. The backend's URL survives both.
 *
 * Resolved as the CLI resolves it (pulumi/pulumi v3.248.0, pkg/workspace/creds.go GetCurrentCloudURL):
 * `PULUMI_BACKEND_URL`, else the project's `backend.url` (Pulumi.yaml in the working folder, which is the
 * program's for the engine's plugins), else the credentials file's `current` (in `PULUMI_CREDENTIALS_PATH`,
 * `PULUMI_HOME` or `~/.pulumi`). A relative `file://` URL is taken from the working folder, as the CLI
 * takes it. Only a digest leaves this module: a backend URL may hold a password (`postgres://user:pw@…`).
 * Undefined when none can be found (then the resource's own identity alone seeds its keys).
 */
export function backendIdentity(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string | undefined {
  const url = env.PULUMI_BACKEND_URL || projectBackendUrl(cwd) || storedCurrentUrl(env);
  if (!url) return undefined;
  return `backend-${createHash("sha256").update(normalised(url, cwd)).digest("hex").slice(0, 32)}`;
}

/** A `file://` URL with a relative path made absolute against `cwd`; any other URL as it is. */
function normalised(url: string, cwd: string): string {
  const m = /^file:\/\/(.*)$/.exec(url);
  if (!m) return url;
  const p = m[1]!.startsWith("~") ? path.join(os.homedir(), m[1]!.slice(1)) : m[1]!;
  return `file://${path.resolve(cwd, p)}`;
}

/** `backend: url:` of the project file in `cwd`, where one says so. */
function projectBackendUrl(cwd: string): string | undefined {
  for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(cwd, name), "utf8");
    } catch {
      continue;
    }
    const m = /^backend\s*:\s*\n(?:[ \t]+.*\n)*?[ \t]+url\s*:\s*["']?([^"'\s#]+)/m.exec(`${text}\n`);
    return m?.[1];
  }
  return undefined;
}

/** The credentials file's `current` backend: where `pulumi login` last pointed the CLI. */
function storedCurrentUrl(env: NodeJS.ProcessEnv): string | undefined {
  const folder = env.PULUMI_CREDENTIALS_PATH || env.PULUMI_HOME || path.join(os.homedir(), ".pulumi");
  try {
    const current = JSON.parse(fs.readFileSync(path.join(folder, "credentials.json"), "utf8")).current;
    return typeof current === "string" && current ? current : undefined;
  } catch {
    return undefined;
  }
}
