import { spawn } from "node:child_process";
import type { ConfigMap, Stack } from "@pulumi/pulumi/automation";

/**
 * Sets a stack's configuration without putting a secret value on any command line. The Automation API's
 * setConfig/setAllConfig pass every value as an argument of `pulumi config set[-all]`, where any local user
 * can read it (/proc/<pid>/cmdline, `ps`). Plain values still go that way; each secret value is written to
 * the standard input of `pulumi config set --secret <key>`, which reads the value from there when the
 * command line has none. Says whether it ran the CLI (values the stack holds already are not written).
 */
export async function setStackConfig(stack: Stack, config: ConfigMap, cli: { pulumiBin: string; workDir: string; env: Record<string, string> }): Promise<boolean> {
  const plain: ConfigMap = {};
  const secret: Array<[string, string]> = [];
  const held = await heldPlainValues(stack);
  for (const [key, { value, secret: isSecret }] of Object.entries(config)) {
    if (isSecret) secret.push([key, value]);
    else if (held.get(key) !== value) plain[key] = { value };
  }
  if (Object.keys(plain).length > 0) await stack.setAllConfig(plain);
  for (const [key, value] of secret) {
    await withInput(cli.pulumiBin, ["config", "set", "--secret", "--stack", stack.name, "--non-interactive", "--", key], value, cli);
  }
  return Object.keys(plain).length + secret.length > 0;
}

/**
 * The plain values the stack's settings file holds, under every spelling of their keys a run may give
 * (`url`, `<project>:url`, `<project>:config:url`). A CI job passes the same --config at every run, and
 * writing values the file holds already is a CLI start (and a passphrase key derivation) that changes
 * nothing; a value held as a secret, or not as a string, is written again. Unreadable settings hold nothing.
 */
async function heldPlainValues(stack: Stack): Promise<Map<string, string>> {
  const held = new Map<string, string>();
  try {
    const project = (await stack.workspace.projectSettings()).name;
    const values = (await stack.workspace.stackSettings(stack.name)).config ?? {};
    for (const [key, value] of Object.entries(values)) {
      if (typeof value !== "string") continue;
      const [namespace, name, ...rest] = key.split(":");
      if (!namespace || !name || rest.length > 0) continue;
      held.set(key, value).set(`${namespace}:config:${name}`, value);
      if (namespace === project) held.set(name, value);
    }
  } catch {
    // no settings file yet: everything is written
  }
  return held;
}

function withInput(bin: string, args: string[], input: string, opts: { workDir: string; env: Record<string, string> }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: opts.workDir, env: { ...process.env, ...opts.env }, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      // The key is named, never the value (and the caller redacts the message anyway).
      else reject(new Error(`pulumi config set --secret ${args.at(-1)} failed (exit ${code}): ${stderr.trim()}`));
    });
    child.stdin.on("error", () => undefined); // the CLI may exit before reading; its exit code tells why
    child.stdin.end(input);
  });
}
