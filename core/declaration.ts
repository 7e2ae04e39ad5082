import { LIMITS, LOCALES } from "../client/limits";
import { MAX_WAIT_FOR_CAPACITY_SECONDS } from "./config";
import type { ImagesAnswer } from "../client/schemas";
import type { ApiVersion, SessionEntry } from "../client";
import type { ProviderContext } from "./context";
import { KeyRefusedError } from "../client/errors";

/** The error of an input broken where no per-property report is possible: the plugin's components reach the client only through the core. */
export { ValidationError } from "../client/errors";

/**
 * Every field of a BrowserSession, declared once: its name (the API's own for what is sent to the
 * service), type, rule, what a change does, whether it is secret, its default and its doc. The SDK's
 * args and outputs, `check`, `diff`, the secret outputs and the component schema's secret marks are all
 * read from here (test/core/fields.test.ts proves they cannot drift).
 *
 * Rules are the service's own (the API reference, as the emulator enforces them), so that preview refuses
 * exactly what a create would be refused for -- no more, no less. Rules that need the service's catalog
 * (enabled browsers, listed locations, residential countries) are in check, below.
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
  /** See state.ts; absent in state written by 0.1.0. */
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

/** One refused input, as the engine shows it: `property <name>: <reason>`. */
export interface Failure {
  property: string;
  reason: string;
}

/**
 * The typed requests of the declaration's operations, as the controller's (controller.ts) are: the inputs
 * the program declares (`news`) and, for diff and update, what the state records (`olds`: the outputs).
 */
export interface CheckRequest {
  news: Record<string, unknown>;
}
export interface DiffRequest {
  olds: Record<string, unknown>;
  news: Record<string, unknown>;
}
export type UpdateRequest = DiffRequest;

/**
 * Preview's check: every input is validated before any session is started -- the field table's rules,
 * then what only the service's catalog and the account can tell. It reads; it never starts anything.
 */
export async function check(ctx: ProviderContext, { news }: CheckRequest): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
  const version = ctx.version();
  const failures = staticFailures(news, version.name);
  await checkAccount(ctx);
  if (version.hasCatalog) {
    const failed = new Set(failures.map((f) => f.property));
    for (const f of catalogFailures(news, await ctx.images())) if (!failed.has(f.property)) failures.push(f);
    if (news.egress === "residential" && !failures.some((f) => f.property === "egress")) {
      const residential = await residentialFailure(ctx);
      if (residential) failures.push(residential);
    }
  }
  if (!version.hasCatalog && typeof news.country === "string" && !isUnknown(news.country) && !failures.some((f) => f.property === "country")) {
    const failure = await v7CountryFailure(ctx, news.country);
    if (failure) failures.push(failure);
  }
  return { inputs: withoutNulls(news), failures };
}

/**
 * Version 7 has no image operation of its own, but the service's catalog (`GET /v8/image`, no key needed)
 * lists the countries its exits are in; where it answers, a v7 country is checked against it too.
 */
async function v7CountryFailure(ctx: ProviderContext, country: string): Promise<Failure | undefined> {
  let countries: string[];
  try {
    countries = (await ctx.images()).vpnLocations.map((l) => l.code);
  } catch {
    return undefined;
  }
  return countries.includes(country) ? undefined : { property: "country", reason: `"${country}" is not a listed country; use one of ${countries.join(", ")}` };
}

const present = (v: unknown) => v !== undefined && v !== null && !isUnknown(v);

const TYPE_REASONS = {
  string: (v: unknown) => `must be a string, got ${typeof v}`,
  number: (v: unknown) => `must be a number of seconds, got ${typeof v}`,
  boolean: (v: unknown) => `must be a boolean, got ${typeof v}`,
};

/** The field table's rules: types, lengths, formats, and what version 7 lacks or takes differently. */
export function staticFailures(news: Record<string, unknown>, version: ApiVersion): Failure[] {
  const failures: Failure[] = [];
  for (const [property, field] of Object.entries(INPUTS) as Array<[string, InputField]>) {
    const v = news[property];
    if (!present(v)) {
      if (field.required && !isUnknown(v)) failures.push({ property, reason: "is required: the id of a browser image (see getImages())" });
      continue;
    }
    if (version === "v7" && field.v7 === "absent") {
      failures.push({ property, reason: "is not offered by API version 7 (remote-browser:apiVersion is v7)" });
      continue;
    }
    const typed = field.type === "number" ? typeof v === "number" && Number.isFinite(v) : typeof v === field.type;
    if (!typed) {
      failures.push({ property, reason: TYPE_REASONS[field.type](v) });
      continue;
    }
    const rules = [field.rule, version === "v7" && typeof field.v7 === "function" ? field.v7 : undefined];
    for (const rule of rules) {
      const reason = (rule as ((value: unknown) => string | undefined) | undefined)?.(v);
      if (reason) {
        failures.push({ property, reason });
        break;
      }
    }
  }
  return failures;
}

/** Rules that need the service's catalog: enabled browsers, listed locations, residential countries. */
export function catalogFailures(news: Record<string, unknown>, catalog: ImagesAnswer): Failure[] {
  const failures: Failure[] = [];
  const browser = news.browser;
  if (typeof browser === "string" && !isUnknown(browser)) {
    const image = catalog.images.find((i) => i.id === browser);
    const enabled = catalog.images.filter((i) => i.enabled).map((i) => i.id);
    if (!image) {
      failures.push({ property: "browser", reason: `"${browser}" is not a browser image of the service; enabled: ${enabled.join(", ")}` });
    } else if (!image.enabled) {
      failures.push({ property: "browser", reason: `"${browser}" is not enabled right now; enabled: ${enabled.join(", ")}` });
    }
  }
  const country = news.country;
  if (typeof country === "string" && !isUnknown(country) && country !== "auto") {
    const codes = catalog.vpnLocations.flatMap((l) => [l.code, ...l.cities.map((c) => c.code)]);
    if (!codes.includes(country)) {
      const countries = catalog.vpnLocations.map((l) => l.code);
      failures.push({
        property: "country",
        reason: `"${country}" is not a listed location; use "auto", a country (${countries.join(", ")}) or one of its cities (see getLocations())`,
      });
    }
  }
  if (news.egress === "residential") {
    const { configured, countries } = catalog.residential;
    const countryPart = typeof country === "string" && !isUnknown(country) && country !== "auto" ? country.split("-")[0] : undefined;
    if (!configured) {
      failures.push({ property: "egress", reason: "residential connections are not configured on the service" });
    } else if (countries !== null && countryPart !== undefined && !countries.includes(countryPart)) {
      failures.push({
        property: "egress",
        reason: `a residential connection is not offered in "${countryPart}" (the country part of country); offered in: ${countries.join(", ")}`,
      });
    }
  }
  return failures;
}

/** The key and the account's programmatic access, checked once per process before any session starts. */
async function checkAccount(ctx: ProviderContext): Promise<void> {
  const account = await ctx.account();
  if (account.feature_programmatic_access === false) {
    throw new KeyRefusedError("the account behind remote-browser:apiKey has no programmatic access: enable it in the account's settings");
  }
}

async function residentialFailure(ctx: ProviderContext): Promise<Failure | undefined> {
  const account = await ctx.account();
  if (!("residential_bytes_used_cycle" in account)) return undefined;
  const limitMb = account.residential_cycle_mb_limit;
  if (limitMb === null) {
    return { property: "egress", reason: "the account's plan includes no residential data (residential_cycle_mb_limit is null)" };
  }
  if (account.residential_bytes_used_cycle >= limitMb * 1024 * 1024) {
    return { property: "egress", reason: `the account's residential data for this cycle (${limitMb} MB) is used up` };
  }
  return undefined;
}

/** How one input's change lands: on the running session, or on a new one. */
export type ChangeKind = "update" | "replace";

/**
 * Diff, from the field table: a session cannot be changed once started, so a change of an input sent to
 * the service replaces it -- except the share link's language, which is a segment of the link; the
 * provider's own inputs change in place. No API call.
 */
export function diff({ olds, news }: DiffRequest) {
  const replaces = REPLACING_INPUTS.filter((k) => differs(olds[k], news[k]));
  const updates = IN_PLACE_INPUTS.filter((k) => differs(olds[k], news[k]));
  const detailed: Record<string, ChangeKind> = {};
  for (const k of updates) detailed[k] = "update";
  for (const k of replaces) detailed[k] = "replace";
  return {
    changes: replaces.length + updates.length > 0,
    replaces: replaces as string[],
    /** The in-place inputs that change. */
    updates: updates as string[],
    /** Each changed input and what its change does, for a front that shows it (the plugin's detailed diff). */
    detailed,
    // Always, also with no change at all: the engine takes this answer for the replacements it decides
    // itself after asking (replaceOnChanges on an in-place input). Ending the old session first lets a plan
    // whose running limit is used up (a limit of 1) still replace one; the link is down meanwhile, which a
    // program that prefers two sessions at once chooses with the deleteBeforeReplace: false option.
    deleteBeforeReplace: true,
  };
}

/**
 * Update: records the in-place inputs; nothing is sent to the service. A new shareLanguage rewrites the
 * `<locale>` segment of the recorded share links (`{share_base}/<locale>/s?<link_id>`).
 */
export function update({ olds, news }: UpdateRequest): { outs: Record<string, unknown> } {
  const outs = { ...olds };
  for (const k of IN_PLACE_INPUTS) outs[k] = news[k] ?? undefined;
  const locale = typeof news.shareLanguage === "string" ? news.shareLanguage : DEFAULT_SHARE_LANGUAGE;
  for (const k of ["shareUrl", "shareUrlPath"] as const) if (typeof outs[k] === "string") outs[k] = withLocale(outs[k] as string, locale);
  return { outs: withoutNulls(outs) };
}

/** The service's viewer language when a create names none. */
export const DEFAULT_SHARE_LANGUAGE = "en";

/** A share link (or its path form) with its `<locale>` segment, the one before `/s?`, set to `locale`. */
export function withLocale(link: string, locale: string): string {
  return link.replace(/\/[^/?#]*\/s\?/, `/${locale}/s?`);
}

/**
 * Whether a recorded value and a new one differ, the one equality of every diff (a session's inputs, the
 * plugin's settings): absent and null are the same, a value not known yet differs, the rest by value.
 */
export function differs(a: unknown, b: unknown): boolean {
  if (isUnknown(b)) return true;
  const na = a === undefined || a === null;
  const nb = b === undefined || b === null;
  if (na || nb) return na !== nb;
  return JSON.stringify(a) !== JSON.stringify(b);
}

/** The inputs a session's outputs repeat, so that a refresh can hand them back and create no diff. */
export function mirrorInputs(inputs: Record<string, unknown>): SessionInputs {
  return presentOf(inputs, [...API_INPUTS, ...PROVIDER_INPUTS]) as unknown as SessionInputs;
}

/** The inputs a refresh records, rebuilt from outputs (which mirror them). */
export function inputsFrom(outs: Record<string, unknown>): Record<string, unknown> {
  return withoutNulls(mirrorInputs(outs) as unknown as Record<string, unknown>);
}

/** What a status entry says about a session. */
export function fromEntry(entry: SessionEntry): Partial<SessionOutputs> {
  const out: Partial<SessionOutputs> = { status: entry.status, browserName: entry.name, created: entry.created };
  if (entry.location_applied !== undefined) out.locationApplied = entry.location_applied;
  if (entry.location_reason !== undefined) out.locationReason = entry.location_reason;
  return out;
}

/**
 * The one rule for an absent value, `undefined` or `null`, wherever a map is kept, sent or recorded: it is
 * left out. The service's requests, the outputs, the idempotency key's material and both fronts' property
 * maps (the engine's wire has no `undefined`, which protobuf's Struct refuses and the dynamic provider host's
 * serialiser drops) all go through here.
 */
export function withoutNulls<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out as T;
}

/** The values of `keys` that `o` has, in the order of `keys`. */
export function presentOf(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return withoutNulls(Object.fromEntries(keys.map((k) => [k, o[k]])));
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A session taken into a stack rather than started by it: what the provider knows of it, and the stance
 * on what it cannot know. The service's status answer names the session's browser image and its state;
 * it reports none of the other inputs the session was started with (its url, language, layout, country,
 * egress, viewer language, callback, idempotency key), and the provider's own inputs were never given.
 * So an import records those as the program declares them, unconfirmed, and says so at the import; it
 * never reads a value back it could not know, and a change after the import replaces as for any session.
 */

/** The inputs the status answer reports, by which an import is checked (the browser, by its image's name). */
const REPORTED: readonly InputName[] = ["browser"];

/** Inputs sent to the service that an import cannot confirm: the warning names these. */
export const UNCONFIRMED_API_INPUTS: readonly InputName[] = API_INPUTS.filter((k) => !REPORTED.includes(k));

/**
 * The output that marks a session read by id alone (`pulumi import`, the plugin's `import` option): the
 * inputs its state did not record at the import, whose declared values the first diff adopts.
 */
export const UNCONFIRMED_MARK = "unconfirmedInputs";

/** The outputs of a session read by id, marked: every input but the ones the status answer reports. */
export function markUnconfirmed<T extends object>(outs: T): T & { [UNCONFIRMED_MARK]: string[] } {
  const unconfirmed = (Object.keys(INPUTS) as InputName[]).filter((k) => !REPORTED.includes(k));
  return { ...outs, [UNCONFIRMED_MARK]: unconfirmed };
}

/**
 * The warning when a session is taken in by its id: which of its inputs the service cannot confirm --
 * those `declared` by the program where the front knows them (the dynamic resource's adoption), else all.
 */
export function unconfirmedWarning(vmId: string, declared?: readonly string[]): string {
  const names = declared ? UNCONFIRMED_API_INPUTS.filter((k) => declared.includes(k)) : UNCONFIRMED_API_INPUTS;
  const which = declared ? `declared: ${names.length ? names.join(", ") : "none"}` : names.join(", ");
  return (
    `BrowserSession ${vmId}, taken in by its id: the service reports its browser and state, not the other inputs it was started with (${which}). ` +
    "The stack records those as the program declares them, unconfirmed: declare the values the session was started with, or the stack " +
    "describes another session than the one running. A later change of one replaces the session. Its share link is unknown (no shareUrl)."
  );
}

/**
 * The recorded side of a diff, with the inputs an import could not record filled in. Until the first
 * update after the import has recorded the program's inputs (`settled` false), from the inputs the state
 * records, else adopted as the program now declares them -- on both sides, so that a value not known yet
 * at preview is no change either. From then on (`settled`), the inputs the state records are the
 * program's, and an input they lack was not declared: declaring it is a change like on any session. A
 * session not imported is returned as it is.
 */
export function withDeclaredAdopted(
  olds: Record<string, unknown>,
  oldInputs: Record<string, unknown>,
  news: Record<string, unknown>,
  settled = false,
): { olds: Record<string, unknown>; news: Record<string, unknown> } {
  const unconfirmed = olds[UNCONFIRMED_MARK];
  if (!Array.isArray(unconfirmed)) return { olds, news };
  const o = { ...olds };
  const n = { ...news };
  for (const k of unconfirmed) {
    if (typeof k !== "string") continue;
    const recorded = oldInputs[k];
    if (recorded !== undefined && recorded !== null) o[k] = recorded;
    else if (settled) delete o[k];
    else if (isUnknown(n[k])) delete n[k];
    else o[k] = n[k];
  }
  return { olds: o, news: n };
}
