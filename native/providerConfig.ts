import type { Failure } from "../provider/check";
import { CONFIG_FIELDS, CONFIG_NAMESPACE, loadConfig } from "../provider/config";
import { isProviderError } from "../provider/errors";
import { reveal, wrapSecrets } from "./secrets";

/**
 * The provider's own settings as the plugin receives them: from the stack's `remote-browser:*` config for
 * the default provider, from the resource's inputs for an explicit `pulumi:providers:remote-browser`.
 * They are read by the one config loader (provider/config.ts), with the same environment fallbacks.
 */
export type SettingsGetter = (key: string) => string | undefined;

/** A getter over the provider's inputs (bare keys), secrets unwrapped, numbers as their text. */
export function settingsFrom(args: Record<string, unknown>, variables: Map<string, string> | undefined): SettingsGetter {
  const plain = reveal(args) as Record<string, unknown>;
  return (key) => {
    const v = plain[key] ?? variables?.get(`${CONFIG_NAMESPACE}:${key}`);
    return v === undefined || v === null ? undefined : typeof v === "string" ? v : String(v);
  };
}

/**
 * CheckConfig: every setting checked by the loader before anything runs, so a bad value fails the
 * preview, not the first create. The inputs go back with the key and the idempotency secret wrapped as
 * secrets whatever the program did, so that an explicit provider's state never holds them in plain text.
 */
export function checkConfig(news: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): { inputs: Record<string, unknown>; failures: Failure[] } {
  const failures: Failure[] = [];
  try {
    loadConfig(settingsFrom(news, undefined), env);
  } catch (err) {
    if (!isProviderError(err)) throw err;
    failures.push({ property: err.property ?? "", reason: err.message });
  }
  const secretKeys = Object.entries(CONFIG_FIELDS)
    .filter(([, f]) => (f as { secret?: boolean }).secret)
    .map(([k]) => k);
  return { inputs: wrapSecrets(news, secretKeys), failures };
}

/** DiffConfig: which settings changed. None replaces the provider: its sessions stay as they are. */
export function diffConfig(olds: Record<string, unknown>, news: Record<string, unknown>): { changes: boolean; diffs: string[] } {
  const o = reveal(olds) as Record<string, unknown>;
  const n = reveal(news) as Record<string, unknown>;
  const diffs = Object.keys(CONFIG_FIELDS).filter((k) => JSON.stringify(o[k] ?? null) !== JSON.stringify(n[k] ?? null));
  return { changes: diffs.length > 0, diffs };
}
