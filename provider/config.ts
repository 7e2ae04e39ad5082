import type { ApiVersion } from "../client";

/** The provider's settings, from the `remote-browser` config namespace with environment fallbacks. */
export interface ProviderConfig {
  apiKey?: string;
  baseUrl: string;
  apiVersion: ApiVersion;
  /** Default of every session's `waitForCapacitySeconds`: how long a create waits for a free running slot. */
  waitForCapacitySeconds: number;
}

export const CONFIG_NAMESPACE = "remote-browser";
export const ENV_API_KEY = "REMOTE_BROWSER_API_KEY";
export const ENV_BASE_URL = "REMOTE_BROWSER_BASE_URL";
export const ENV_API_VERSION = "REMOTE_BROWSER_API_VERSION";
export const ENV_WAIT_FOR_CAPACITY = "REMOTE_BROWSER_WAIT_FOR_CAPACITY_SECONDS";
export const MAX_WAIT_FOR_CAPACITY_SECONDS = 3_600;
/** Where `npm run emulator` listens by default: the emulator is the default service for local work. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8788/v8";

export class ConfigError extends Error {
  readonly code = "configuration";
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * The one config loader. `get` reads a key of the namespace without its prefix (`apiKey`), from the
 * stack's config: in the provider that is the `configure` request, in a program `pulumi.Config`.
 */
export function loadConfig(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  const apiKey = nonEmpty(get("apiKey")) ?? nonEmpty(env[ENV_API_KEY]);
  const baseUrl = nonEmpty(get("baseUrl")) ?? nonEmpty(env[ENV_BASE_URL]) ?? DEFAULT_BASE_URL;
  const version = nonEmpty(get("apiVersion")) ?? nonEmpty(env[ENV_API_VERSION]) ?? "v8";
  if (version !== "v8" && version !== "v7") {
    throw new ConfigError(`${CONFIG_NAMESPACE}:apiVersion must be "v8" or "v7", got "${version}"`);
  }
  const waitRaw = nonEmpty(get("waitForCapacitySeconds")) ?? nonEmpty(env[ENV_WAIT_FOR_CAPACITY]) ?? "0";
  const waitForCapacitySeconds = Number(waitRaw);
  if (!Number.isFinite(waitForCapacitySeconds) || waitForCapacitySeconds < 0 || waitForCapacitySeconds > MAX_WAIT_FOR_CAPACITY_SECONDS) {
    throw new ConfigError(
      `${CONFIG_NAMESPACE}:waitForCapacitySeconds must be a number of seconds from 0 to ${MAX_WAIT_FOR_CAPACITY_SECONDS}, got "${waitRaw}"`,
    );
  }
  return { apiKey, baseUrl, apiVersion: version, waitForCapacitySeconds };
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}
