import { RemoteBrowserClient } from "../client";
import type { ApiVersion } from "../client";
import { ConfigError } from "./errors";

/** The provider's settings, from the `remote-browser` config namespace with environment fallbacks. */
export interface ProviderConfig {
  apiKey?: string;
  baseUrl: string;
  apiVersion: ApiVersion;
  /** Default of every session's `waitForCapacitySeconds`: how long a create waits for a free running slot. */
  waitForCapacitySeconds: number;
  /** How long one request may take before it counts as failed (and is retried where that is safe). */
  requestTimeoutSeconds: number;
  /** The stack's secret that keys the derived idempotency keys (see keys.ts); none: they are plain hashes. */
  idempotencySecret?: string;
}

export const CONFIG_NAMESPACE = "remote-browser";

/**
 * Every setting once: its type, whether it is secret, its environment fallback and its doc. The plugin's
 * schema (stack config and explicit provider instances) is derived from this; loadConfig reads them.
 */
export const CONFIG_FIELDS = {
  apiKey: { type: "string", secret: true, env: "REMOTE_BROWSER_API_KEY", doc: "The service's API key." },
  baseUrl: {
    type: "string",
    env: "REMOTE_BROWSER_BASE_URL",
    doc: "The service's address, with or without its `/v8` segment; the local emulator is `http://127.0.0.1:8788/v8`.",
  },
  apiVersion: { type: "string", env: "REMOTE_BROWSER_API_VERSION", doc: "`v8` (default) or `v7`." },
  waitForCapacitySeconds: {
    type: "number",
    env: "REMOTE_BROWSER_WAIT_FOR_CAPACITY_SECONDS",
    doc: "Default capacity wait of every session, 0 to 3600 seconds (default 0): how long a create waits for a free running slot.",
  },
  idempotencySecret: {
    type: "string",
    secret: true,
    env: "REMOTE_BROWSER_IDEMPOTENCY_SECRET",
    doc: "At least 16 characters, one per stack and kept: keys the derived idempotency keys so that nobody without it can compute them.",
  },
  requestTimeoutSeconds: {
    type: "number",
    env: "REMOTE_BROWSER_REQUEST_TIMEOUT_SECONDS",
    doc: "How long one request may take before it counts as failed and is retried where that is safe (default 15).",
  },
} as const satisfies Record<keyof ProviderConfig, { type: "string" | "number"; secret?: boolean; env: string; doc: string }>;
export const ENV_API_KEY = CONFIG_FIELDS.apiKey.env;
export const ENV_BASE_URL = CONFIG_FIELDS.baseUrl.env;
export const ENV_API_VERSION = CONFIG_FIELDS.apiVersion.env;
export const ENV_WAIT_FOR_CAPACITY = CONFIG_FIELDS.waitForCapacitySeconds.env;
export const MAX_WAIT_FOR_CAPACITY_SECONDS = 3_600;
export const ENV_REQUEST_TIMEOUT = CONFIG_FIELDS.requestTimeoutSeconds.env;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 15;
export const ENV_IDEMPOTENCY_SECRET = CONFIG_FIELDS.idempotencySecret.env;
export const MIN_IDEMPOTENCY_SECRET_LENGTH = 16;
/**
 * Where `npm run emulator` listens by default: the address used without a key (the catalog needs none).
 * A key is never sent there unless that address is set explicitly (see loadConfig).
 */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8788/v8";
/**
 * Settings that are credentials: in the stack's config they belong only as secrets (as plain config they
 * sit in clear text in `Pulumi.<stack>.yaml` and in the state), and they are never given on a command line.
 */
export const SECRET_SETTINGS = ["apiKey", "idempotencySecret"] as const;

export { ConfigError } from "./errors";

/**
 * The one config loader. `get` reads a key of the namespace without its prefix (`apiKey`), from the
 * stack's config: in the provider that is the `configure` request, in a program `pulumi.Config`.
 */
export function loadConfig(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  const apiKey = nonEmpty(get("apiKey")) ?? nonEmpty(env[ENV_API_KEY]);
  const explicitBaseUrl = nonEmpty(get("baseUrl")) ?? nonEmpty(env[ENV_BASE_URL]);
  // Plain HTTP to a local port that any local user can listen on: a key goes there only by choice. Nothing
  // in a key tells a real one from an emulator's, so every key needs the address said.
  if (apiKey !== undefined && explicitBaseUrl === undefined) {
    throw new ConfigError(
      `an API key is configured (${CONFIG_NAMESPACE}:apiKey or ${ENV_API_KEY}) but no service address: set ${CONFIG_NAMESPACE}:baseUrl ` +
        `or ${ENV_BASE_URL} (e.g. https://api.example.com/v8, or the emulator's address). Without one the key would go in plain HTTP ` +
        `to the default ${DEFAULT_BASE_URL}, where any local user can listen.`,
      { property: "baseUrl" },
    );
  }
  const baseUrl = explicitBaseUrl ?? DEFAULT_BASE_URL;
  const version = nonEmpty(get("apiVersion")) ?? nonEmpty(env[ENV_API_VERSION]) ?? "v8";
  if (version !== "v8" && version !== "v7") {
    throw new ConfigError(`${CONFIG_NAMESPACE}:apiVersion must be "v8" or "v7", got "${version}"`, { property: "apiVersion" });
  }
  const seconds = (key: string, envName: string, fallback: number, min: number, max: number): number => {
    const raw = nonEmpty(get(key)) ?? nonEmpty(env[envName]);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) {
      throw new ConfigError(`${CONFIG_NAMESPACE}:${key} must be a number of seconds from ${min} to ${max}, got "${raw}"`, { property: key });
    }
    return n;
  };
  const idempotencySecret = nonEmpty(get("idempotencySecret")) ?? nonEmpty(env[ENV_IDEMPOTENCY_SECRET]);
  if (idempotencySecret !== undefined && idempotencySecret.length < MIN_IDEMPOTENCY_SECRET_LENGTH) {
    throw new ConfigError(
      `${CONFIG_NAMESPACE}:idempotencySecret must be at least ${MIN_IDEMPOTENCY_SECRET_LENGTH} characters (e.g. \`openssl rand -hex 32\`), got ${idempotencySecret.length}`,
      { property: "idempotencySecret" },
    );
  }
  return {
    apiKey,
    baseUrl,
    apiVersion: version,
    waitForCapacitySeconds: seconds("waitForCapacitySeconds", ENV_WAIT_FOR_CAPACITY, 0, 0, MAX_WAIT_FOR_CAPACITY_SECONDS),
    requestTimeoutSeconds: seconds("requestTimeoutSeconds", ENV_REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT_SECONDS, 0.1, 300),
    ...(idempotencySecret !== undefined ? { idempotencySecret } : {}),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** The client for these settings: the one place a provider or data source builds one. */
export function clientForConfig(cfg: ProviderConfig): RemoteBrowserClient {
  return new RemoteBrowserClient({ baseUrl: cfg.baseUrl, apiKey: cfg.apiKey, attemptTimeoutMs: cfg.requestTimeoutSeconds * 1000 });
}
