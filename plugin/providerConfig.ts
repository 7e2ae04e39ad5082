import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { type Failure, differs } from "../core/declaration";
import {
  CONFIG_FIELDS,
  CONFIG_NAMESPACE,
  ConfigError,
  isSetting,
  loadConfig,
  notASettingWarning,
  plainCredentialWarning,
  secretSettingOf,
  settingText,
  stackConfigLabel,
  type SettingLabel,
} from "../core/config";
import { isSecret, reveal, wrapSecrets, isBookkeeping, urnName, urnStack } from "../engine-conventions/wire";

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
export function settingsFrom(args: Record<string, unknown>, variables: Map<string, string> | undefined, label: SettingLabel = stackConfigLabel): SettingsGetter {
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
  olds: Record<string, unknown> = {},
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
    warnings.push(notASettingWarning(where));
  }
  try {
    loadConfig(settingsFrom(news, undefined, label), env, label);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    failures.push({ property: "", reason: err.message });
  }
  const secretKeys = Object.entries(CONFIG_FIELDS)
    .filter(([, f]) => (f as { secret?: boolean }).secret)
    .map(([k]) => k);
  return { inputs: { ...wrapSecrets(news, secretKeys), [STACK_IDENTITY]: stackIdentityOf(olds) }, failures, warnings };
}

/**
 * The provider input that tells this stack apart from every other: drawn at random by the first CheckConfig
 * of the stack's provider and kept from the recorded inputs (`olds`) by every later one. The engine records
 * a provider's checked inputs before any resource that uses it is created, and configures each process that
 * serves the provider with them (pulumi/pulumi v3.248.0, pkg/resource/deploy/providers/registry.go: Check,
 * Create, Same, Update): so every create of the stack's sessions, in this update and in the one after a
 * killed update, seeds its idempotency key with the same value, and no stack of another backend,
 * organisation or project -- even one of the same names -- with the same one. Not a setting: DiffConfig
 * does not compare it, so a stack of an earlier release shows no change when it is first recorded.
 */
export const STACK_IDENTITY = "__stackIdentity";

/** The recorded stack identity, else a new one. */
export function stackIdentityOf(olds: Record<string, unknown>): string {
  const recorded = reveal(olds[STACK_IDENTITY]);
  return typeof recorded === "string" && /^stack-[0-9a-f-]{36}$/.test(recorded) ? recorded : `stack-${randomUUID()}`;
}

/** The stack identity Configure was given, where the recorded inputs hold one (not in a state of an earlier release). */
export function configuredStackIdentity(args: Record<string, unknown>): string | undefined {
  const v = reveal(args[STACK_IDENTITY]);
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** DiffConfig: which settings changed. None replaces the provider: its sessions stay as they are. */
export function diffConfig(olds: Record<string, unknown>, news: Record<string, unknown>): { changes: boolean; diffs: string[] } {
  const o = reveal(olds) as Record<string, unknown>;
  const n = reveal(news) as Record<string, unknown>;
  const diffs = Object.keys(CONFIG_FIELDS).filter((k) => differs(o[k], n[k]));
  return { changes: diffs.length > 0, diffs };
}

/**
 * The credentials among a config file's entries whose value is there in clear text (anything but `secure:`),
 * in any spelling and form (`remote-browser:apiKey: <value>` or `{value: <value>}`): of the stack's file
 * (`Pulumi.<stack>.yaml`; the engine hands the plugin every value unwrapped at CheckConfig, so whether the
 * key is a secret shows only there), and of the project's `config:` block (Pulumi.yaml: usually committed,
 * its values reach every stack of the project, and its history, in plain text).
 */
export function credentialsIn(text: string): string[] {
  return configEntries(text)
    .filter(({ key, value }) => secretSettingOf(key) && value !== "" && !/^\{?\s*secure\s*:/.test(value))
    .map(({ key }) => key);
}

/**
 * The entries of a YAML file's top-level `config:` mapping, each with the text of its value: on the key's
 * line, on the more indented lines below it (`key:` then the value, or a map, on the next line), or in a
 * flow mapping (`config: {remote-browser:apiKey: …}`). Not a YAML parser: enough of YAML to find what
 * Pulumi's config files write and what a user types in them, with no dependency in the plugin.
 */
function configEntries(text: string): Array<{ key: string; value: string }> {
  const lines = text.split(/\r?\n/).filter((l) => !/^\s*(#.*)?$/.test(l));
  const depthOf = (l: string) => l.length - l.trimStart().length;
  const entries: Array<{ key: string; value: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const top = /^config\s*:(.*)$/.exec(lines[i]!);
    if (!top) continue;
    const inline = withoutComment(top[1]!);
    if (inline.startsWith("{")) {
      // A flow mapping runs until its braces close, over as many lines as it takes.
      let flow = inline;
      while (braceDepth(flow) > 0 && i + 1 < lines.length) flow += ` ${lines[++i]!.trim()}`;
      entries.push(...flowEntries(flow));
      continue;
    }
    let indent: number | undefined;
    for (let j = i + 1; j < lines.length && depthOf(lines[j]!) > 0; j++) {
      indent ??= depthOf(lines[j]!);
      if (depthOf(lines[j]!) !== indent) continue;
      const m = /^(["']?)([^"'\s#][^"'\s]*?)\1:(?:\s+(.*))?$/.exec(lines[j]!.trim());
      if (!m) continue;
      let value = withoutComment(m[3] ?? "");
      if (value === "") {
        const below: string[] = [];
        for (let k = j + 1; k < lines.length && depthOf(lines[k]!) > indent; k++) below.push(lines[k]!.trim());
        value = below.join(" ");
      }
      entries.push({ key: m[2]!, value });
    }
  }
  return entries;
}

/** The entries of a flow mapping's text (`{a: b, c: {secure: x}}`), each key unquoted, each value as written. */
function flowEntries(flow: string): Array<{ key: string; value: string }> {
  const inner = flow.trim().replace(/^\{/, "").replace(/\}$/, "");
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts.flatMap((part) => {
    // The key ends at the first colon followed by a space or a value's opening: `remote-browser:apiKey: x`.
    const m = /^(["']?)(.+?)\1\s*:(?:\s+|(?=[{["']))(.*)$/s.exec(part.trim());
    return m ? [{ key: m[2]!, value: m[3]!.trim() }] : [];
  });
}

function braceDepth(text: string): number {
  return (text.match(/\{/g) ?? []).length - (text.match(/\}/g) ?? []).length;
}

/** A value's text without a trailing comment (` # …`, as YAML reads one outside quotes). */
function withoutComment(value: string): string {
  const v = value.trim();
  return v.startsWith("#") ? "" : v.replace(/\s+#.*$/, "");
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

/**
 * The default provider's warnings about credentials written in plain text in the files the CLI reads its
 * config from, in the folder the engine starts the plugin in: the stack's (whether the key is a secret shows
 * only there) and the project's.
 */
export function configFileWarnings(urn: string, dir: string = process.cwd()): string[] {
  return [...credentialsIn(stackConfigText(urn, dir)).map(plainCredentialWarning), ...credentialsIn(projectFileText(dir)).map(projectCredentialWarning)];
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
