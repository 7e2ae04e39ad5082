import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { inject } from "vitest";
import { E2E_PASSPHRASE } from "./harness";

export type AuditRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs `pulumi-remote-browser-run audit` of the installed package against an emulator's account, as the
 * sweep workflow does. With `backendUrl`, on that backend; without, on the backend the work folder's
 * project names (a stack's own). `cwd` runs it from another folder with no `--work-dir`.
 */
export function runAudit(account: { apiKey: string; apiBaseUrl: string }, opts: { workDir: string; backendUrl?: string; cwd?: string; args?: string[] }): Promise<AuditRun> {
  const { projectDir, pulumiBin } = inject("e2e");
  const runner = path.join(projectDir, "node_modules", "pulumi-remote-browser", "dist", "runner", "cli.js");
  fs.mkdirSync(opts.workDir, { recursive: true });
  const { PULUMI_BACKEND_URL: _inherited, ...inherited } = process.env;
  const env = {
    ...inherited,
    ...(opts.backendUrl ? { PULUMI_BACKEND_URL: opts.backendUrl, PULUMI_CONFIG_PASSPHRASE: E2E_PASSPHRASE } : {}),
    PULUMI_REMOTE_BROWSER_PULUMI: pulumiBin,
    REMOTE_BROWSER_API_KEY: account.apiKey,
    REMOTE_BROWSER_BASE_URL: account.apiBaseUrl,
  };
  const args = [runner, "audit", "--orphan-minutes", "0", ...(opts.cwd ? [] : ["--work-dir", opts.workDir]), ...(opts.args ?? [])];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd ?? opts.workDir, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
