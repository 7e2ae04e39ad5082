import type { ConfigMap } from "@pulumi/pulumi/automation";
import { CONFIG_NAMESPACE, baseUrlCredentials, misspeltSettingOf, secretSettingOf } from "../core/config";
import { readSecretsFile } from "./secrets-file";
import { UsageError } from "./usage";

/**
 * The stack config a runner command gives: `--config key=value` (plain), `--secret-env key=VAR` and
 * `--secrets-file <file>` (secret). Refused before anything is recorded: a secret on the command line
 * (`--secret key=value`, a credential in `--config`), where any local user can read it; a service address
 * with a user name or password, or a key in its query, from any of them -- the engine records the stack's
 * whole config as the inputs of the program's default provider, so a password there would be in the state,
 * its backups and the update history before the provider could refuse it, and the CLI's command line holds
 * every plain value; and a misspelt setting (`remote_browser:apiKey`, `remote-browser:api.key`), which the
 * provider never reads, so that the run would go on without it.
 */
export function configFromArgs(values: { config?: string[]; secret?: string[]; "secret-env"?: string[]; "secrets-file"?: string }, env: NodeJS.ProcessEnv = process.env): ConfigMap {
  if (values.secret?.length) {
    // The value is in this process's argv already, readable by any local user: refuse rather than use it.
    throw new UsageError(
      "--secret key=value puts the secret on the command line, where any local user can read it; " +
        "use --secret-env key=ENV_VAR (the value in an environment variable) or --secrets-file <file.json> " +
        '(a 0600 file holding {"key": "value"}) instead',
    );
  }
  const config: ConfigMap = {};
  for (const pair of values.config ?? []) {
    const [key, value] = splitPair("--config", pair);
    if (secretSettingOf(misspeltSettingOf(key) ?? key)) {
      // As for --secret: the value is in this process's argv already, and it would be stored in clear text.
      throw new UsageError(
        `--config ${key}=... puts a credential on the command line, where any local user can read it, and in the ` +
          `stack's config in clear text; use --secret-env ${key}=ENV_VAR or --secrets-file <file.json> instead`,
      );
    }
    config[key] = { value, secret: false };
  }
  for (const pair of values["secret-env"] ?? []) {
    const [key, name] = splitPair("--secret-env", pair);
    const value = env[name];
    if (!value) throw new UsageError(`--secret-env ${key}=${name}: the environment variable ${name} is not set or empty`);
    config[key] = { value, secret: true };
  }
  if (values["secrets-file"]) {
    for (const [key, value] of Object.entries(readSecretsFile(values["secrets-file"]))) config[key] = { value, secret: true };
  }
  for (const [key, { value }] of Object.entries(config)) {
    const credentials = isBaseUrlKey(key) ? baseUrlCredentials(value) : undefined;
    if (!credentials) continue;
    throw new UsageError(
      `${key} carries ${credentials}: the key goes in ${CONFIG_NAMESPACE}:apiKey (--secret-env or --secrets-file), ` +
        "never in the address, which the engine records in the stack's state and history. Remove them from the URL, and " +
        "change that password: it may already be in a shell history or a log. Nothing was run.",
    );
  }
  // After the address: credentials in it are refused first, under any spelling of its key.
  for (const key of Object.keys(config)) {
    const meant = misspeltSettingOf(key);
    if (!meant) continue;
    throw new UsageError(`${key}: the provider reads no such setting, so the value would never reach it (it reads ${meant}); give it under that name. Nothing was run.`);
  }
  return config;
}

/** `remote-browser:baseUrl` in the spellings Pulumi reads as it (`remote-browser:config:baseUrl`) or a user types. */
function isBaseUrlKey(key: string): boolean {
  const parts = (misspeltSettingOf(key) ?? key).split(":").map((p) => p.trim().toLowerCase());
  return parts.length >= 2 && parts[0] === CONFIG_NAMESPACE && parts.at(-1)!.replace(/[-_\s]/g, "") === "baseurl";
}

export function splitPair(flag: string, pair: string): [string, string] {
  const eq = pair.indexOf("=");
  if (eq <= 0) throw new UsageError(`${flag} takes key=value, got "${pair}"`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}
