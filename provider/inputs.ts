import { LIMITS, LOCALES } from "../client/schemas";
import type { ImagesAnswer } from "../client/schemas";
import type { ApiVersion } from "../client";
import { MAX_WAIT_FOR_CAPACITY_SECONDS } from "./config";

/** The value the engine passes for an input that is not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Inputs sent to the service when a session starts; changing any of them means a new session. */
export const API_INPUTS = [
  "browser",
  "url",
  "language",
  "layout",
  "country",
  "egress",
  "shareLanguage",
  "callbackUrl",
  "idempotencyKey",
] as const;
export type ApiInput = (typeof API_INPUTS)[number];

/** Inputs only the provider reads; they change in place, without calling the service. */
export const PROVIDER_INPUTS = ["readyTimeoutSeconds", "requireLocation", "waitForCapacitySeconds"] as const;

export const DEFAULT_READY_TIMEOUT_SECONDS = 300;
export const MAX_READY_TIMEOUT_SECONDS = 3_600;

/** Inputs as the engine hands them over (after check), including the provider's own hidden fields. */
export interface SessionInputs {
  browser: string;
  url?: string;
  language?: string;
  layout?: string;
  country?: string;
  egress?: string;
  shareLanguage?: string;
  callbackUrl?: string;
  idempotencyKey?: string;
  readyTimeoutSeconds?: number;
  requireLocation?: boolean;
  waitForCapacitySeconds?: number;
  /** Identity of the resource in its stack (project/stack/name), set by the SDK; seeds the idempotency key. */
  __seed?: string;
  /** Set from the `import` resource option: take over this running session instead of starting one. */
  __adoptVmId?: string;
}

export interface Failure {
  property: string;
  reason: string;
}

const LANGUAGE_CODE = /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/;

const isUnknown = (v: unknown) => v === UNKNOWN;
const present = (v: unknown) => v !== undefined && v !== null && !isUnknown(v);

/** Rules that need nothing but the inputs: types, lengths, formats, and what version 7 lacks. */
export function staticFailures(news: Record<string, unknown>, version: ApiVersion): Failure[] {
  const failures: Failure[] = [];
  const fail = (property: string, reason: string) => failures.push({ property, reason });
  const str = (property: string): string | undefined => {
    const v = news[property];
    if (!present(v)) return undefined;
    if (typeof v !== "string") {
      fail(property, `must be a string, got ${typeof v}`);
      return undefined;
    }
    return v;
  };

  if (!present(news.browser) && !isUnknown(news.browser)) {
    fail("browser", "is required: the id of a browser image (see getImages())");
  } else {
    const browser = str("browser");
    if (browser !== undefined && browser.trim() === "") fail("browser", "must not be empty");
  }

  const url = str("url");
  if (url !== undefined && url.length > LIMITS.urlMaxLength) {
    fail("url", `must be at most ${LIMITS.urlMaxLength} characters, got ${url.length}`);
  }

  for (const property of ["language", "layout"] as const) {
    const v = str(property);
    if (v !== undefined && !LANGUAGE_CODE.test(v)) {
      fail(property, `must be a ${property === "language" ? "language" : "keyboard layout"} code such as ${property === "language" ? "en or de" : "us or de"}, got "${v}"`);
    }
  }

  const country = str("country");
  if (country !== undefined && country.trim() === "") fail("country", "must not be empty");
  if (version === "v7" && country !== undefined && !/^[A-Za-z]{2}$/.test(country)) {
    fail("country", `API version 7 takes a two-letter country code, got "${country}"`);
  }

  const egress = str("egress");
  if (egress !== undefined && egress !== "residential") fail("egress", `must be "residential" when set, got "${egress}"`);

  const shareLanguage = str("shareLanguage");
  if (shareLanguage !== undefined && !(LOCALES as readonly string[]).includes(shareLanguage)) {
    fail("shareLanguage", `must be one of ${LOCALES.join(", ")}, got "${shareLanguage}"`);
  }

  const callbackUrl = str("callbackUrl");
  if (callbackUrl !== undefined) {
    if (callbackUrl.length > LIMITS.callbackUrlMaxLength) {
      fail("callbackUrl", `must be at most ${LIMITS.callbackUrlMaxLength} characters, got ${callbackUrl.length}`);
    } else if (!isHttpUrl(callbackUrl)) {
      fail("callbackUrl", `must be an absolute http:// or https:// address, got "${truncate(callbackUrl)}"`);
    }
  }

  const key = str("idempotencyKey");
  if (key !== undefined && (key.length < LIMITS.idempotencyKeyMinLength || key.length > LIMITS.idempotencyKeyMaxLength)) {
    fail("idempotencyKey", `must be ${LIMITS.idempotencyKeyMinLength} to ${LIMITS.idempotencyKeyMaxLength} characters, got ${key.length}`);
  }

  if (version === "v7") {
    for (const property of ["egress", "idempotencyKey"] as const) {
      if (present(news[property])) fail(property, "is not offered by API version 7 (remote-browser:apiVersion is v7)");
    }
  }

  const timeout = news.readyTimeoutSeconds;
  if (present(timeout)) {
    if (typeof timeout !== "number" || !Number.isFinite(timeout)) {
      fail("readyTimeoutSeconds", `must be a number of seconds, got ${typeof timeout}`);
    } else if (timeout <= 0 || timeout > MAX_READY_TIMEOUT_SECONDS) {
      fail("readyTimeoutSeconds", `must be more than 0 and at most ${MAX_READY_TIMEOUT_SECONDS}, got ${timeout}`);
    }
  }
  const capacityWait = news.waitForCapacitySeconds;
  if (present(capacityWait)) {
    if (typeof capacityWait !== "number" || !Number.isFinite(capacityWait)) {
      fail("waitForCapacitySeconds", `must be a number of seconds, got ${typeof capacityWait}`);
    } else if (capacityWait < 0 || capacityWait > MAX_WAIT_FOR_CAPACITY_SECONDS) {
      fail("waitForCapacitySeconds", `must be from 0 to ${MAX_WAIT_FOR_CAPACITY_SECONDS}, got ${capacityWait}`);
    }
  }
  const requireLocation = news.requireLocation;
  if (present(requireLocation) && typeof requireLocation !== "boolean") {
    fail("requireLocation", `must be a boolean, got ${typeof requireLocation}`);
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

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    return false;
  }
}

function truncate(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

export function containsUnknown(news: Record<string, unknown>): boolean {
  return Object.values(news).some(isUnknown);
}

export { isUnknown };
