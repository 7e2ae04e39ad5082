import { RESIDENTIAL, VPN_LOCATIONS, countryPart, enabledImageIds, findCountry, findImage, isKnownLocation } from "./catalog";
import type { ApiVersion, JsonObject, ShareLocale } from "./types";
import { SHARE_LOCALES, isShareLocale } from "./types";

export const MAX_URL_LENGTH = 10_000;
export const MAX_CALLBACK_URL_LENGTH = 2_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

/** A start request after validation, with defaults applied. */
export interface CreateRequest {
  browser: string;
  url: string | null;
  language: string;
  layout: string;
  country: string | null;
  egress: "residential" | null;
  shareLanguage: ShareLocale;
  callbackUrl: string | null;
  idempotencyKey: string | null;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; message: string };

const V8_FIELDS = ["browser", "url", "language", "layout", "country", "egress", "shareLanguage", "callbackUrl", "idempotencyKey"];
const V7_FIELDS = ["browser", "url", "language", "layout", "country", "shareLanguage", "callbackUrl"];

// The API reference gives examples (en, de; us, de) but no list, so any tag-shaped code is accepted.
const CODE_PATTERN = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/;

/** Quotes a client value for a message without echoing an unbounded string. */
function show(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

function optionalString(body: JsonObject, field: string): Validated<string | null> {
  const value = body[field];
  if (value === undefined) return { ok: true, value: null };
  if (typeof value !== "string") return fail(`${field}: must be a string`);
  return { ok: true, value };
}

/** Validates the body of a start call. Every refusal message starts with the field it concerns. */
export function validateCreate(body: JsonObject, version: ApiVersion): Validated<CreateRequest> {
  const accepted = version === "v8" ? V8_FIELDS : V7_FIELDS;
  for (const key of Object.keys(body)) {
    if (accepted.includes(key)) continue;
    if (version === "v7" && V8_FIELDS.includes(key)) {
      return fail(`${key}: not supported by version 7; use the /v8 API for this field`);
    }
    return fail(`${key}: unknown field; accepted fields: ${accepted.join(", ")}`);
  }

  const browser = body.browser;
  const enabled = enabledImageIds().join(", ");
  if (browser === undefined) return fail(`browser: required; enabled browsers: ${enabled}`);
  if (typeof browser !== "string") return fail("browser: must be a string");
  const image = findImage(browser);
  if (!image) return fail(`browser: unknown browser ${show(browser)}; enabled browsers: ${enabled}`);
  if (!image.enabled) return fail(`browser: ${show(browser)} is not enabled right now; enabled browsers: ${enabled}`);

  const url = optionalString(body, "url");
  if (!url.ok) return url;
  if (url.value !== null && url.value.length > MAX_URL_LENGTH) {
    return fail(`url: must be at most ${MAX_URL_LENGTH} characters (got ${url.value.length})`);
  }

  const language = optionalString(body, "language");
  if (!language.ok) return language;
  if (language.value !== null && !CODE_PATTERN.test(language.value)) {
    return fail(`language: ${show(language.value)} is not a language code such as en or de`);
  }

  const layout = optionalString(body, "layout");
  if (!layout.ok) return layout;
  if (layout.value !== null && !CODE_PATTERN.test(layout.value)) {
    return fail(`layout: ${show(layout.value)} is not a keyboard layout code such as us or de`);
  }

  const country = optionalString(body, "country");
  if (!country.ok) return country;
  if (country.value !== null) {
    if (version === "v7") {
      if (!/^[a-z]{2}$/.test(country.value) || !findCountry(country.value)) {
        const codes = VPN_LOCATIONS.map((l) => l.code).join(", ");
        return fail(`country: ${show(country.value)} is not a supported two-letter country code; supported: ${codes}`);
      }
    } else if (!isKnownLocation(country.value)) {
      return fail(`country: unsupported location ${show(country.value)}; use a country or city code listed by GET /image, or auto`);
    }
  }

  const egress = optionalString(body, "egress");
  if (!egress.ok) return egress;
  if (egress.value !== null && egress.value !== "residential") {
    return fail(`egress: ${show(egress.value)} is not supported; the only value is "residential"`);
  }
  if (egress.value === "residential" && country.value !== null && RESIDENTIAL.countries !== null) {
    const part = countryPart(country.value);
    if (part !== null && !RESIDENTIAL.countries.includes(part)) {
      return fail(`country: residential connections are not available in ${show(part)}; residential countries: ${RESIDENTIAL.countries.join(", ")}`);
    }
  }

  const shareLanguage = optionalString(body, "shareLanguage");
  if (!shareLanguage.ok) return shareLanguage;
  if (shareLanguage.value !== null && !isShareLocale(shareLanguage.value)) {
    return fail(`shareLanguage: must be one of ${SHARE_LOCALES.join(", ")}`);
  }

  const callbackUrl = optionalString(body, "callbackUrl");
  if (!callbackUrl.ok) return callbackUrl;
  if (callbackUrl.value !== null) {
    if (callbackUrl.value.length > MAX_CALLBACK_URL_LENGTH) {
      return fail(`callbackUrl: must be at most ${MAX_CALLBACK_URL_LENGTH} characters (got ${callbackUrl.value.length})`);
    }
    if (!isHttpUrl(callbackUrl.value)) return fail("callbackUrl: must be an absolute http or https address");
  }

  const idempotencyKey = optionalString(body, "idempotencyKey");
  if (!idempotencyKey.ok) return idempotencyKey;
  if (idempotencyKey.value !== null) {
    const n = idempotencyKey.value.length;
    if (n < 1 || n > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return fail(`idempotencyKey: must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters (got ${n})`);
    }
  }

  return {
    ok: true,
    value: {
      browser,
      url: url.value,
      // "Default: the account setting, otherwise en/us": emulated accounts have no such setting.
      language: language.value ?? "en",
      layout: layout.value ?? "us",
      country: country.value,
      egress: egress.value === "residential" ? "residential" : null,
      shareLanguage: (shareLanguage.value as ShareLocale | null) ?? "en",
      callbackUrl: callbackUrl.value,
      idempotencyKey: idempotencyKey.value,
    },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
  } catch {
    return false;
  }
}

/** Key-order independent JSON, so that `{a,b}` and `{b,a}` count as the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}
