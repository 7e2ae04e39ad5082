import { LIMITS, LOCALES } from "../client/limits";
import { MAX_WAIT_FOR_CAPACITY_SECONDS } from "./config";

/**
 * Every field of a BrowserSession, declared once: its name (the API's own for what is sent to the
 * service), type, rule, what a change does, whether it is secret, its default and its doc. The SDK's
 * args and outputs, `check`, `diff`, the secret outputs and the component schema's secret marks are all
 * read from here (test/core/fields.test.ts proves they cannot drift).
 *
 * Rules are the service's own (the API reference, as the emulator enforces them), so that preview refuses
 * exactly what a create would be refused for -- no more, no less. Rules that need the service's catalog
 * (enabled browsers, listed locations, residential countries) are in check.ts.
 */

/** The value the engine passes for an input that is not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type FieldType = "string" | "number" | "boolean";

export interface InputField {
  type: FieldType;
  /** Sent to the service at create (`api`), or read by the provider alone (`provider`). */
  role: "api" | "provider";
  /** A new session, or a change of the recorded state only (no API call). */
  onChange: "replace" | "in-place";
  required?: boolean;
  /** Refuses a value of the right type: the reason, or undefined. */
  rule?: (value: never) => string | undefined;
  /** What API version 7 makes of it: absent there, or a stricter rule. */
  v7?: "absent" | ((value: never) => string | undefined);
  /** The default, as the docs state it. */
  default?: string;
  doc: string;
}

export interface OutputField {
  type: FieldType;
  secret?: boolean;
  doc: string;
}

/**
 * Language and keyboard layout codes as the service takes them: a two- or three-letter primary code and up
 * to three subtags (`en`, `de-CH`, `zh_Hant_TW`); `dvorak` and `english` are refused.
 */
export const LANGUAGE_CODE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/;

const code = (what: string, examples: string) => (v: string) =>
  LANGUAGE_CODE.test(v) ? undefined : `must be a ${what} code such as ${examples} (two or three letters, optional subtags), got "${truncate(v)}"`;

const seconds = (min: number, max: number, exclusiveMin: boolean) => (v: number) =>
  !Number.isFinite(v) || (exclusiveMin ? v <= min : v < min) || v > max
    ? `must be ${exclusiveMin ? `more than ${min}` : `from ${min}`} ${exclusiveMin ? "and at most" : "to"} ${max}, got ${v}`
    : undefined;

export const DEFAULT_READY_TIMEOUT_SECONDS = 300;
export const MAX_READY_TIMEOUT_SECONDS = 3_600;

export const INPUTS = {
  browser: {
    type: "string",
    role: "api",
    onChange: "replace",
    required: true,
    rule: (v: string) => (v.trim() === "" ? "must not be empty" : undefined),
    doc: "Browser image id to start, e.g. `chrome`; must be an enabled image (see `getImages()`).",
  },
  url: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: (v: string) => (v.length > LIMITS.urlMaxLength ? `must be at most ${LIMITS.urlMaxLength} characters, got ${v.length}` : undefined),
    doc: "First page to open; at most 10,000 characters.",
  },
  language: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: code("language", "en or de"),
    default: "the account setting, else `en`",
    doc: "Browser interface language code, e.g. `en` or `de`.",
  },
  layout: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: code("keyboard layout", "us or de"),
    default: "the account setting, else `us`",
    doc: "Keyboard layout code, e.g. `us` or `de`.",
  },
  country: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: (v: string) => (v.trim() === "" ? "must not be empty" : undefined),
    // Version 7 takes a lower-case two-letter country code, nothing else (no cities, no `auto`).
    v7: (v: string) => (/^[a-z]{2}$/.test(v) ? undefined : `API version 7 takes a lower-case two-letter country code such as us or de, got "${truncate(v)}"`),
    doc:
      "Exit location: a country code (`us`, `de`, `uk`), a city code (`us-dal`) as `getLocations()` lists them, or `auto`. " +
      "Needs location access in the plan. When no exit is free there, the session starts on the default connection and " +
      "`locationApplied` is false (see `requireLocation`).",
  },
  egress: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: (v: string) => (v === "residential" ? undefined : `must be "residential" when set, got "${truncate(v)}"`),
    v7: "absent",
    doc: "`residential` browses through a residential connection (needs residential data in the plan; uses only the country part of `country`).",
  },
  shareLanguage: {
    type: "string",
    role: "api",
    // The link's `<locale>` segment sets the viewer language, and any of the values may be put in it
    // (the service's share links): a change rewrites the recorded links, the session runs on.
    onChange: "in-place",
    rule: (v: string) => ((LOCALES as readonly string[]).includes(v) ? undefined : `must be one of ${LOCALES.join(", ")}, got "${truncate(v)}"`),
    default: '"en"',
    doc: "Viewer language of the share link: a change rewrites the link's `<locale>` segment, and the session runs on.",
  },
  callbackUrl: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: (v: string) =>
      v.length > LIMITS.callbackUrlMaxLength
        ? `must be at most ${LIMITS.callbackUrlMaxLength} characters, got ${v.length}`
        : isHttpUrl(v)
          ? undefined
          : `must be an absolute http:// or https:// address, got "${truncate(v)}"`,
    doc: "http(s) address the viewer opens when someone leaves the session or its ended screen; at most 2,000 characters.",
  },
  idempotencyKey: {
    type: "string",
    role: "api",
    onChange: "replace",
    rule: (v: string) =>
      v.length < LIMITS.idempotencyKeyMinLength || v.length > LIMITS.idempotencyKeyMaxLength
        ? `must be ${LIMITS.idempotencyKeyMinLength} to ${LIMITS.idempotencyKeyMaxLength} characters, got ${v.length}`
        : undefined,
    v7: "absent",
    default: "a key derived from the stack, the resource name and its inputs, stable across retries and interrupted updates and new for a replacement",
    doc: "Idempotency key for the create call, 1 to 128 characters.",
  },
  readyTimeoutSeconds: {
    type: "number",
    role: "provider",
    onChange: "in-place",
    rule: seconds(0, MAX_READY_TIMEOUT_SECONDS, true),
    default: String(DEFAULT_READY_TIMEOUT_SECONDS),
    doc: "How long create waits for the session to be running before it ends it and fails.",
  },
  requireLocation: {
    type: "boolean",
    role: "provider",
    onChange: "in-place",
    default: "false",
    doc: "Fail (and end the session) when the requested location could not be applied.",
  },
  waitForCapacitySeconds: {
    type: "number",
    role: "provider",
    onChange: "in-place",
    rule: seconds(0, MAX_WAIT_FOR_CAPACITY_SECONDS, false),
    default: "`remote-browser:waitForCapacitySeconds`, else 0",
    doc:
      "When the account's running limit is reached, wait up to this long for a free slot instead of failing at once with `upgrade` " +
      "(for stacks that share one account, e.g. one per pull request).",
  },
} as const satisfies Record<string, InputField>;

export const OUTPUTS = {
  vmId: { type: "string", doc: "The session's identifier (`vmId`), also the resource's id." },
  shareUrl: {
    type: "string",
    secret: true,
    doc: "Secret. `{share_base}/<locale>/s?<link_id>`: whoever has it can view the session. Absent when the service could not create a link; unknown after an import.",
  },
  shareUrlPath: { type: "string", secret: true, doc: "Secret. The path form of the share link, `/<locale>/s?<link_id>`." },
  status: { type: "string", doc: "The session's state when last read: `running` after create; refreshed by `pulumi refresh`." },
  browserName: { type: "string", doc: "Display name of the browser." },
  created: { type: "string", doc: "When the service started the session (ISO 8601)." },
  locationApplied: { type: "boolean", doc: "False when no exit was free in the requested location and the session runs on the default connection." },
  locationReason: { type: "string", doc: "Why the location was not applied (`unavailable`), when `locationApplied` is false." },
  apiVersion: { type: "string", doc: "API version the session was started with (`v8`, or `v7` which cannot wait, refresh or end)." },
  owner: {
    type: "string",
    doc:
      "Fingerprint of the account and service that made the session, `acct2-<salt>-<digests>@svc-<hash>` (not secret; no key in it). " +
      "Refresh and destroy refuse to act on the session with the key of another account.",
  },
} as const satisfies Record<string, OutputField>;

export type InputName = keyof typeof INPUTS;
export type OutputName = keyof typeof OUTPUTS;

const names = <T extends object>(o: T) => Object.keys(o) as Array<keyof T>;
const inputsWhere = (p: (f: InputField) => boolean) => names(INPUTS).filter((n) => p(INPUTS[n] as InputField));

/** Inputs sent to the service when a session starts; changing any of them but shareLanguage means a new session. */
export const API_INPUTS = inputsWhere((f) => f.role === "api");
/** Inputs only the provider reads; they change in place, without calling the service. */
export const PROVIDER_INPUTS = inputsWhere((f) => f.role === "provider");
export const REPLACING_INPUTS = inputsWhere((f) => f.onChange === "replace");
export const IN_PLACE_INPUTS = inputsWhere((f) => f.onChange === "in-place");
/** Outputs kept secret in the state (the SDK's additionalSecretOutputs). */
export const SECRET_OUTPUTS = names(OUTPUTS).filter((n) => (OUTPUTS[n] as OutputField).secret === true);

type TsType<T extends FieldType> = T extends "string" ? string : T extends "number" ? number : boolean;

/** A session's inputs, as check passed them. */
export type SessionInputs = { browser: string } & {
  [K in Exclude<InputName, "browser">]?: TsType<(typeof INPUTS)[K]["type"]>;
};

/** What the provider records for a session: every input, plus what the service said about it. */
export interface SessionOutputs extends SessionInputs {
  vmId: string;
  shareUrl?: string;
  shareUrlPath?: string;
  status: string;
  browserName?: string;
  created?: string;
  locationApplied?: boolean;
  locationReason?: string;
  /** The API version the session was started with: it decides what refresh and destroy can do. */
  apiVersion: "v8" | "v7";
  /** See owner.ts; absent in state written by 0.1.0 (see stateUpgrades.ts). */
  owner?: string;
}

export const isUnknown = (v: unknown): boolean => v === UNKNOWN;

/**
 * An input's doc as users read it: the field's doc, whether a change replaces the session, and its default
 * -- `Default: x.` in the schema (and so in every generated SDK), `@default x` in the TypeScript SDK's
 * declarations, which test/architecture/single-source.test.ts holds to this.
 */
export function inputDoc(field: InputField, style: "schema" | "jsdoc"): string {
  const change = field.onChange === "replace" ? " Changing it replaces the session." : " Changes in place.";
  if (!field.default) return `${field.doc}${change}`;
  return style === "schema" ? `${field.doc}${change} Default: ${field.default}.` : `${field.doc}${change} @default ${field.default}`;
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    return false;
  }
}

export function truncate(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
