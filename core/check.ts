import type { ImagesAnswer } from "../client/schemas";
import type { ApiVersion } from "../client";
import type { ProviderContext } from "./context";
import { INPUTS, InputField, isUnknown } from "./fields";
import { withoutNulls } from "./outputs";
import { KeyRefusedError } from "./errors";

/** One refused input, as the engine shows it: `property <name>: <reason>`. */
export interface Failure {
  property: string;
  reason: string;
}

/**
 * Preview's check: every input is validated before any session is started -- the field table's rules,
 * then what only the service's catalog and the account can tell. It reads; it never starts anything.
 */
export async function check(
  ctx: ProviderContext,
  _olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
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

export function containsUnknown(news: Record<string, unknown>): boolean {
  return Object.values(news).some(isUnknown);
}
