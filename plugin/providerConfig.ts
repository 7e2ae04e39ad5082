import * as fs from "node:fs";
import * as path from "node:path";
import type { Failure } from "../core/check";
import { CONFIG_FIELDS, CONFIG_NAMESPACE, isSetting, loadConfig, secretSettingOf, settingText, stackConfigLabel } from "../core/config";
import type { SettingLabel } from "../core/config";
import { differs } from "../core/diff";
import { isProviderError } from "../core/errors";
import { isSecret, reveal, wrapSecrets } from "../engine-conventions/secrets";
import { isBookkeeping } from "../engine-conventions/wire";
import { urnName, urnStack } from "../engine-conventions/urn";

/**
 * The provider's own settings as the plugin receives them: from the stack's `remote-browser:*` config for
 * the default provider, from the resource's inputs for an explicit `pulumi:providers:remote-browser`.
 * They are read by the one config loader (core/config.ts), with the same environment fallbacks.
 */
export type SettingsGetter = (key: string) => string | undefined;

/**
 * Inputs the engine itself gives every provider (its version, where its plugin comes from, a parameterised
 * package's name): not settings, and not typos of one.
 */
const ENGINE_INPUTS = new Set(["version", "pluginDownloadURL", "pluginChecksums", "name"]);

/**
 * A getter over the provider's inputs (bare keys), secrets unwrapped, numbers as their text. A value of the
 * wrong type is refused, never turned into text: an object key would otherwise be sent as `[object Object]`.
 */
export function settingsFrom(
  args: Record<string, unknown>,
  variables: Map<string, string> | undefined,
  label: SettingLabel = stackConfigLabel,
): SettingsGetter {
  const plain = reveal(args) as Record<string, unknown>;
  return (key) => {
    const v = Object.prototype.hasOwnProperty.call(plain, key) ? plain[key] : undefined;
    return settingText(key, v, label) ?? variables?.get(`${CONFIG_NAMESPACE}:${key}`);
  };
}

/**
 * Whether a provider's URN is the engine's default provider (the stack's `remote-browser:*` config), named
 * `default` or `default_<version>`, rather than an explicit `pulumi:providers:remote-browser` of the program.
 */
export function isDefaultProvider(urn: string | undefined): boolean {
  if (!urn) return true;
  return /^default(_|$)/.test(urnName(urn));
}

/**
 * CheckConfig: every setting checked by the loader before anything runs, so a bad value fails the
 * preview, not the first create. The inputs go back with the key and the idempotency secret wrapped as
 * secrets whatever the program did, so that an explicit provider's state never holds them in plain text.
 * Messages name a setting as the user wrote it: the stack's config key for the default provider, the
 * provider's property for an explicit one. Warnings (unknown keys) are returned for the caller to show.
 *
 * No failure names a property: the engine prints a failure on a property together with that property's
 * input value ("property baseUrl value {https://user:password@…} has a problem", `issueCheckFailures` in
 * pulumi/pulumi), and a setting's value may be a password in the address, a key, or a key pasted into the
 * wrong setting. A failure without a property is printed with its reason alone, and every reason names the
 * setting in words.
 */
export function checkConfig(
  news: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  urn?: string,
): { inputs: Record<string, unknown>; failures: Failure[]; warnings: string[] } {
  const stackConfig = isDefaultProvider(urn);
  const label: SettingLabel = stackConfig ? stackConfigLabel : (key) => `the provider's ${key}`;
  const failures: Failure[] = [];
  const warnings: string[] = [];
  for (const name of Object.keys(news)) {
    if (isSetting(name) || ENGINE_INPUTS.has(name) || isBookkeeping(name)) continue;
    const where = stackConfig ? `${CONFIG_NAMESPACE}:${name}` : `the provider's ${name}`;
    const credential = secretSettingOf(`${CONFIG_NAMESPACE}:${name}`);
    if (credential) {
      // Ignored as a setting, yet its value, a credential, sits wherever it was written (the engine does not say
      // whether it was a secret: CheckConfig receives every value in plain).
      failures.push({
        property: "",
        reason:
          `${where} is not a setting but a misspelling of ${credential}, a credential: ` +
          (stackConfig
            ? `remove it (\`pulumi config rm ${CONFIG_NAMESPACE}:${name}\`) and set the real one as a secret: \`pulumi config set --secret ${CONFIG_NAMESPACE}:${credential}\``
            : `name it ${credential} and pass it as a secret`),
      });
      continue;
    }
    warnings.push(`${where} is not a setting of the remote-browser provider and is ignored (its settings: ${Object.keys(CONFIG_FIELDS).join(", ")})`);
  }
  try {
    loadConfig(settingsFrom(news, undefined, label), env, label);
  } catch (err) {
    if (!isProviderError(err)) throw err;
    failures.push({ property: "", reason: err.message });
  }
  const secretKeys = Object.entries(CONFIG_FIELDS)
    .filter(([, f]) => (f as { secret?: boolean }).secret)
    .map(([k]) => k);
  return { inputs: wrapSecrets(news, secretKeys), failures, warnings };
}

/** DiffConfig: which settings changed. None replaces the provider: its sessions stay as they are. */
export function diffConfig(olds: Record<string, unknown>, news: Record<string, unknown>): { changes: boolean; diffs: string[] } {
  const o = reveal(olds) as Record<string, unknown>;
  const n = reveal(news) as Record<string, unknown>;
  const diffs = Object.keys(CONFIG_FIELDS).filter((k) => differs(o[k], n[k]));
  return { changes: diffs.length > 0, diffs };
}

/**
 * The credentials written in plain text in a stack's config file (`Pulumi.<stack>.yaml`), in any spelling.
 * The engine hands the plugin every value unwrapped at CheckConfig, so whether the key is a secret shows only
 * there, in the file: a plain value follows its key on the same line, a secret one is a `secure:` map.
 */
export function plainCredentialsIn(stackFileText: string): string[] {
  const found: string[] = [];
  for (const line of stackFileText.split(/\r?\n/)) {
    const m = /^\s+(["']?)([^"'\s:#][^"'\s]*?)\1:(?:\s+(.*))?$/.exec(line);
    if (!m || !secretSettingOf(m[2]!)) continue;
    const value = (m[3] ?? "").trim();
    if (value !== "" && !value.startsWith("#") && !/^\{\s*secure\s*:/.test(value)) found.push(m[2]!);
  }
  return found;
}

/**
 * The credentials set in a project's `config:` block (Pulumi.yaml), in any spelling and either form
 * (`remote-browser:apiKey: <value>` or `remote-browser:apiKey: {value: <value>}`): that file is usually
 * committed, and its values reach every stack of the project, and its history, in plain text.
 */
export function projectCredentialsIn(projectFileText: string): string[] {
  const found: string[] = [];
  let inConfig = false;
  let indent: number | undefined;
  for (const line of projectFileText.split(/\r?\n/)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const depth = line.length - line.trimStart().length;
    if (depth === 0) {
      inConfig = /^config\s*:\s*(#.*)?$/.test(line);
      indent = undefined;
      continue;
    }
    if (!inConfig) continue;
    indent ??= depth;
    if (depth !== indent) continue;
    const m = /^(["']?)([^"'\s#][^"'\s]*?)\1:(?:\s+(.*))?$/.exec(line.trim());
    if (!m || !secretSettingOf(m[2]!)) continue;
    if (/^\{\s*secure\s*:/.test((m[3] ?? "").trim())) continue;
    found.push(m[2]!);
  }
  return found;
}

/** The warning for a credential in a project's config (Pulumi.yaml), naming the fix. */
export function projectCredentialWarning(key: string): string {
  const setting = secretSettingOf(key)!;
  return (
    `${key} is set in the project's config (the config: block of Pulumi.yaml), which holds no secrets: the file is usually ` +
    "committed, and the value reaches every stack of the project and its update history in clear text. Remove it from " +
    `Pulumi.yaml and set it per stack as a secret: \`pulumi config set --secret ${CONFIG_NAMESPACE}:${setting}\` (it reads the ` +
    "value from standard input), or pass it in the environment instead; and change that key, it may be in the repository's history."
  );
}

/** The warning for a credential written in plain stack config, naming the command that fixes it. */
export function plainCredentialWarning(key: string): string {
  const setting = secretSettingOf(key)!;
  const rm = key === `${CONFIG_NAMESPACE}:${setting}` ? "" : ` (and \`pulumi config rm ${key}\`: Pulumi reads it as ${CONFIG_NAMESPACE}:${setting})`;
  return (
    `${key} is set as plain (non-secret) stack config, so it is stored in clear text in Pulumi.<stack>.yaml and in the ` +
    `stack's update history. Store it as a secret: \`pulumi config set --secret ${CONFIG_NAMESPACE}:${setting}\`${rm} ` +
    "(it reads the value from standard input), or pass it in the environment instead."
  );
}

/**
 * The default provider's warnings about credentials written in plain text in the files the CLI reads its
 * config from, in the folder the engine starts the plugin in: the stack's (whether the key is a secret shows
 * only there) and the project's.
 */
export function configFileWarnings(urn: string, dir: string = process.cwd()): string[] {
  return [
    ...plainCredentialsIn(stackConfigText(urn, dir)).map(plainCredentialWarning),
    ...projectCredentialsIn(projectFileText(dir)).map(projectCredentialWarning),
  ];
}

/**
 * Whether Configure received the API key in plain: CheckConfig hands it back as a secret, so a plain one
 * means the engine skipped it -- `pulumi import` configures the default provider with the stack's config as
 * written, and records it so (the resource then refuses the import, see resource.ts).
 */
export function keyInPlainConfig(args: Record<string, unknown>): boolean {
  return args.apiKey !== undefined && args.apiKey !== null && !isSecret(args.apiKey);
}

/** The project's Pulumi.yaml in the engine's working folder (the program's), or "" when there is none. */
function projectFileText(dir: string = process.cwd()): string {
  for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
    try {
      return fs.readFileSync(path.join(dir, name), "utf8");
    } catch {
      // the other spelling, or none
    }
  }
  return "";
}

/**
 * The stack's config file as the CLI keeps it, in the project folder the engine starts the plugin in
 * (`Pulumi.<stack>.yaml`; the stack is the URN's first part). Empty where there is none (a config kept
 * elsewhere, or the Automation API's stack settings).
 */
function stackConfigText(urn: string, dir: string = process.cwd()): string {
  const stack = urnStack(urn);
  if (!stack || /[/\\]/.test(stack)) return "";
  try {
    return fs.readFileSync(path.join(dir, `Pulumi.${stack}.yaml`), "utf8");
  } catch {
    return "";
  }
}
