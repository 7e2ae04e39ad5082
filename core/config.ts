import { isLoopbackHost } from "../client/limits";
import type { ApiVersion } from "../client";
import { ConfigError } from "../client/errors";

/** The provider's settings, from the `remote-browser` config namespace with environment fallbacks. */
export interface ProviderConfig {
  apiKey?: string;
  baseUrl: string;
  apiVersion: ApiVersion;
  /** Default of every session's `waitForCapacitySeconds`: how long a create waits for a free running slot. */
  waitForCapacitySeconds: number;
  /** How long one request may take before it counts as failed (and is retried where that is safe). */
  requestTimeoutSeconds: number;
  /** The stack's secret that keys the derived idempotency keys (see launch.ts); none: they are plain hashes. */
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

/** The longest value a setting may have: far above any real one, and bounded so no message or request carries megabytes. */
export const MAX_SETTING_LENGTH = 4_096;

/**
 * The credential a stack config key sets, in any spelling the engine or a tired user may give it: Pulumi reads
 * `remote-browser:config:apiKey` as `remote-browser:apiKey`, and `remote-browser:apikey` is one typo away (the
 * provider ignores it, but its value still sits in the stack's config file). Undefined for any other key.
 */
export function secretSettingOf(key: string): (typeof SECRET_SETTINGS)[number] | undefined {
  const parts = key.split(":").map((p) => p.trim().toLowerCase());
  if (parts.length < 2 || parts[0] !== CONFIG_NAMESPACE) return undefined;
  const name = parts.at(-1)!.replace(/[-_.\s]/g, "");
  return SECRET_SETTINGS.find((s) => s.toLowerCase() === name);
}

/**
 * The setting a stack config key was meant to set, `remote-browser:<setting>`, when it misspells the namespace
 * (`remote_browser:apiKey`, `remotebrowser:apiKey`, `Remote-Browser:apiKey`) or the setting's name
 * (`remote-browser:api.key`, `remote-browser:apikey`, `remote-browser:api_key`): the provider reads neither,
 * so the value never reaches it -- a key then seems missing, an address seems ignored -- while a credential
 * still sits in the stack's config. Undefined for a key spelt right (`remote-browser:config:<setting>`, which
 * Pulumi reads as `remote-browser:<setting>`, included) and for any key that is not a setting's.
 */
export function misspeltSettingOf(key: string): string | undefined {
  const parts = key.split(":");
  if (parts.length < 2) return undefined;
  const squash = (s: string) => s.toLowerCase().replace(/[-_.\s]/g, "");
  if (squash(parts[0]!) !== squash(CONFIG_NAMESPACE)) return undefined;
  const name = parts.at(-1)!;
  const setting = Object.keys(CONFIG_FIELDS).find((s) => squash(s) === squash(name));
  if (!setting) return undefined;
  const middle = parts.slice(1, -1);
  const spelt = parts[0] === CONFIG_NAMESPACE && name === setting && (middle.length === 0 || (middle.length === 1 && middle[0] === "config"));
  return spelt ? undefined : `${CONFIG_NAMESPACE}:${setting}`;
}

/**
 * The warning for a credential set as plain (non-secret) stack config, naming the command that fixes it and,
 * for another spelling, the key to remove: one text for both fronts, the SDK's (which learns it from the
 * program's runtime) and the plugin's (which reads it from the stack's config file).
 */
export function plainCredentialWarning(key: string): string {
  const setting = secretSettingOf(key)!;
  const meant = `${CONFIG_NAMESPACE}:${setting}`;
  const rm =
    key === meant
      ? ""
      : key === `${CONFIG_NAMESPACE}:config:${setting}`
        ? ` (and \`pulumi config rm ${key}\`: Pulumi reads it as ${meant})`
        : ` (and \`pulumi config rm ${key}\`: the provider ignores that spelling)`;
  return (
    `${key} is set as plain (non-secret) stack config, so it is stored in clear text in the stack's config file, Pulumi.<stack>.yaml ` +
    `(or the project's Pulumi.yaml, which is usually committed), and in the stack's update history. Store it as a secret: ` +
    `\`pulumi config set --secret ${meant}\`${rm} (it reads the value from standard input), or pass it in the environment instead.`
  );
}

/** The warning for a key that is no setting, `where` naming it as its front knows it: one text for both fronts. */
export function notASettingWarning(where: string): string {
  return `${where} is not a setting of the remote-browser provider and is ignored (its settings: ${Object.keys(CONFIG_FIELDS).join(", ")})`;
}

/** Whether `name` (without the namespace) is one of the provider's settings, by an own-property lookup. */
export function isSetting(name: string): name is keyof typeof CONFIG_FIELDS {
  return Object.prototype.hasOwnProperty.call(CONFIG_FIELDS, name);
}

/** How a message names a setting: `remote-browser:<key>` for the stack's config, a property for an explicit provider. */
export type SettingLabel = (key: keyof typeof CONFIG_FIELDS) => string;
export const stackConfigLabel: SettingLabel = (key) => `${CONFIG_NAMESPACE}:${key}`;

/**
 * A setting's value as the loader reads it, whichever front received it: text as it is, a number setting's
 * number as its text, nothing for absent or null. Any other type is refused, never turned into text: an
 * object key would otherwise be sent as `[object Object]`.
 */
export function settingText(key: string, value: unknown, label: SettingLabel = stackConfigLabel): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  const type = isSetting(key) ? CONFIG_FIELDS[key].type : "string";
  if (type === "number" && typeof value === "number") return String(value);
  const name = isSetting(key) ? label(key) : key;
  throw new ConfigError(`${name} must be a ${type}, got ${Array.isArray(value) ? "a list" : `a ${typeof value}`}`, { property: key });
}

export { ConfigError } from "../client/errors";

/**
 * The one config loader. `get` reads a key of the namespace without its prefix (`apiKey`), from the
 * stack's config: in the provider that is the `configure` request, in a program `pulumi.Config`.
 */
export function loadConfig(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env, label: SettingLabel = stackConfigLabel): ProviderConfig {
  // A value is never echoed whole: it may be a key pasted into the wrong setting, or megabytes long.
  for (const key of Object.keys(CONFIG_FIELDS) as Array<keyof typeof CONFIG_FIELDS>) {
    const length = Math.max(get(key)?.length ?? 0, env[CONFIG_FIELDS[key].env]?.length ?? 0);
    if (length > MAX_SETTING_LENGTH) {
      throw new ConfigError(`${label(key)} (or ${CONFIG_FIELDS[key].env}) is ${length} characters long; a value may have at most ${MAX_SETTING_LENGTH}`, {
        property: key,
      });
    }
  }
  for (const key of Object.keys(CONFIG_FIELDS) as Array<keyof typeof CONFIG_FIELDS>) {
    const structured = structuredText(get(key));
    if (structured) {
      // Pulumi hands a program and the dynamic provider a structured value (`pulumi config set --path
      // 'remote-browser:apiKey.k' …`) as its JSON text; sent on, that text would be the bearer key.
      throw new ConfigError(
        `${label(key)} must be a ${CONFIG_FIELDS[key].type}, got ${structured} (set with \`pulumi config set --path\`?); ` +
          `set the key itself: \`pulumi config set${"secret" in CONFIG_FIELDS[key] ? " --secret" : ""} ${CONFIG_NAMESPACE}:${key}\``,
        { property: key },
      );
    }
  }
  const apiKey = nonEmpty(get("apiKey")) ?? nonEmpty(env[ENV_API_KEY]);
  const explicitBaseUrl = nonEmpty(get("baseUrl")) ?? nonEmpty(env[ENV_BASE_URL]);
  if (explicitBaseUrl !== undefined) checkBaseUrl(explicitBaseUrl, apiKey !== undefined, label);
  // Plain HTTP to a local port that any local user can listen on: a key goes there only by choice. Nothing
  // in a key tells a real one from an emulator's, so every key needs the address said.
  if (apiKey !== undefined && explicitBaseUrl === undefined) {
    throw new ConfigError(
      `an API key is configured (${label("apiKey")} or ${ENV_API_KEY}) but no service address: set ${label("baseUrl")} ` +
        `or ${ENV_BASE_URL} (e.g. https://api.example.com/v8, or the emulator's address). Without one the key would go in plain HTTP ` +
        `to the default ${DEFAULT_BASE_URL}, where any local user can listen.`,
      { property: "baseUrl" },
    );
  }
  const baseUrl = explicitBaseUrl ?? DEFAULT_BASE_URL;
  const version = nonEmpty(get("apiVersion")) ?? nonEmpty(env[ENV_API_VERSION]) ?? "v8";
  if (version !== "v8" && version !== "v7") {
    // Not echoed: a value that is not a version may be a key pasted into the wrong setting.
    throw new ConfigError(`${label("apiVersion")} must be "v8" or "v7" (the value given is neither; it is not repeated here)`, { property: "apiVersion" });
  }
  const seconds = (key: "waitForCapacitySeconds" | "requestTimeoutSeconds", envName: string, fallback: number, min: number, max: number): number => {
    const raw = nonEmpty(get(key)) ?? nonEmpty(env[envName]);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) {
      // Only a short number is repeated; anything else could be a pasted secret.
      const shown = /^[-+\d.eE]{1,24}$/.test(raw) ? `got ${raw}` : "got a value that is not a number (not repeated here)";
      throw new ConfigError(`${label(key)} must be a number of seconds from ${min} to ${max}, ${shown}`, { property: key });
    }
    return n;
  };
  const idempotencySecret = nonEmpty(get("idempotencySecret")) ?? nonEmpty(env[ENV_IDEMPOTENCY_SECRET]);
  if (idempotencySecret !== undefined && idempotencySecret.length < MIN_IDEMPOTENCY_SECRET_LENGTH) {
    throw new ConfigError(`${label("idempotencySecret")} must be at least ${MIN_IDEMPOTENCY_SECRET_LENGTH} characters (e.g. \`openssl rand -hex 32\`), got ${idempotencySecret.length}`, {
      property: "idempotencySecret",
    });
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

/**
 * The service's address, refused before anything is recorded or sent: credentials in it would be stored in
 * the state in plain text (an explicit provider's inputs), and a key must not travel in plain HTTP beyond
 * this machine. The address is not repeated in the messages, since it may hold a password.
 */
function checkBaseUrl(raw: string, withKey: boolean, label: SettingLabel): void {
  const where = `${label("baseUrl")} (or ${ENV_BASE_URL})`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${where} is not an absolute http(s) URL, e.g. https://api.example.com/v8`, { property: "baseUrl" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError(`${where} must be an http(s) URL, e.g. https://api.example.com/v8`, { property: "baseUrl" });
  }
  const credentials = baseUrlCredentials(raw);
  if (credentials) {
    throw new ConfigError(
      `${where} carries ${credentials}: the key goes in ${label("apiKey")} (as a secret), never in the address. ` +
        "Remove them from the URL, and change that password: it may already be in a config file or a log",
      { property: "baseUrl" },
    );
  }
  if (url.search || url.hash) {
    throw new ConfigError(`${where} must not carry a query or a fragment`, { property: "baseUrl" });
  }
  if (withKey && url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(
      `${where} is plain http:// to a host other than this machine, and the API key must not travel unencrypted: ` +
        "use https:// (plain http is allowed only for a loopback host such as the local emulator)",
      { property: "baseUrl" },
    );
  }
}

/** "an object" or "a list" when `text` is the JSON text of one (as Pulumi passes structured config), else undefined. */
function structuredText(text: string | undefined): string | undefined {
  const t = text?.trim();
  if (!t || !/^[[{]/.test(t)) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    if (Array.isArray(v)) return "a list";
    return v !== null && typeof v === "object" ? "an object" : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Query parameters under which services, gateways and proxies take a credential: `api_key`/`apikey`/`key`
 * (Google's and many API gateways' key parameter), `token`/`access_token`/`auth_token`/`private_token`
 * (OAuth 2's query form, GitLab's), `auth`, `secret`/`client_secret`, `password`/`pwd`, and signatures
 * (`sig`, `signature`, as in signed URLs). Compared without case, `-` and `_`, and as a suffix (`x-api-key`,
 * `access_key`). A user who cannot put the key in the header pastes it there; the address then carries it.
 */
const CREDENTIAL_QUERY_PARAMETER = /(?:key|token|auth|authorization|secret|password|passwd|pwd|pass|sig|signature|credentials?)$/;

/**
 * What credentials a service address carries, in words for a message, or undefined: a user name or password
 * (`https://user:pw@host/v8`), or a credential in its query (`https://host/v8?api_key=…`, the parameter named,
 * never its value). Refused wherever it is read, and by the runner and the SDK before the stack's config is
 * recorded anywhere.
 */
export function baseUrlCredentials(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const text = raw.trim();
  let userInfo: boolean;
  let query: string;
  try {
    const url = new URL(text);
    userInfo = url.username !== "" || url.password !== "";
    query = url.search.slice(1);
  } catch {
    // Not a URL to the parser; a user-info part and a query are still recognisable.
    userInfo = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i.test(text);
    query = /\?([^#]*)/.exec(text)?.[1] ?? "";
  }
  if (userInfo) return "a user name or password";
  for (const pair of query.split(/[&;]/)) {
    let name = pair.split("=")[0]!;
    try {
      name = decodeURIComponent(name.replace(/\+/g, " "));
    } catch {
      // not percent-encoded after all
    }
    if (CREDENTIAL_QUERY_PARAMETER.test(name.toLowerCase().replace(/[-_.\s]/g, ""))) {
      return `a credential in its query (the parameter ${JSON.stringify(name.slice(0, 40))})`;
    }
  }
  return undefined;
}

/** Whether a service address carries credentials (see baseUrlCredentials). */
export function baseUrlHasCredentials(raw: string | undefined): boolean {
  return baseUrlCredentials(raw) !== undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}
