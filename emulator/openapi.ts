/**
 * OpenAPI 3.1 description of the emulated API (v8 and v7). The emulator's tests validate every
 * answer against it, so it doubles as a checked contract for client schemas.
 * Not described: the share-link viewer (another origin) and the `/_emulator` control surface.
 */
import { IMAGES, VPN_LOCATIONS } from "./catalog";
import { SESSION_STATUSES, SHARE_LOCALES } from "./types";
import { MAX_CALLBACK_URL_LENGTH, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_URL_LENGTH } from "./validate";

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: "string" };
const int: Schema = { type: "integer", minimum: 0 };
const nullableInt: Schema = { type: ["integer", "null"], minimum: 0 };
const bool: Schema = { type: "boolean" };
const date: Schema = { type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" };

function object(properties: Record<string, Schema>, required: string[] = Object.keys(properties), extra: Schema = {}): Schema {
  return { type: "object", properties, required, additionalProperties: false, ...extra };
}

const okStatus: Schema = { const: "ok" };

const sessionMeterFields: Record<string, Schema> = {
  cycle_session_limit: { ...nullableInt, description: "Maximum sessions in the current cycle; null means no cap" },
  cycle_sessions_used: { ...int, description: "Sessions started in the current cycle" },
  cycle_sessions_remaining: { ...nullableInt, description: "Sessions left in the cycle; null means no cap" },
  running_session_limit: { ...int, description: "Maximum simultaneous sessions" },
  running_sessions_used: { ...int, description: "Sessions currently counted as running" },
  running_sessions_remaining: { ...int, description: "Free slots under the running limit; other launch checks still apply" },
  cycle_start: { ...date, description: "Start date of the current cycle" },
};

const usageMeterFields: Record<string, Schema> = {
  ...sessionMeterFields,
  residential_cycle_mb_limit: { ...nullableInt, description: "Residential data per cycle in MB; null means no allowance applies" },
  residential_bytes_used_cycle: { ...int, description: "Residential data used in the current cycle, in bytes" },
};

const shareUrlPath: Schema = {
  type: "string",
  pattern: `^/(${SHARE_LOCALES.join("|")})/s\\?.+$`,
  description: "Path form of the share link; a secret",
};
const shareUrl: Schema = { type: "string", format: "uri", pattern: `/(${SHARE_LOCALES.join("|")})/s\\?.+$`, description: "Share link; a secret" };
const vmId: Schema = { type: "string", pattern: "^vm-[0-9a-f]+$", description: "Session identifier: fixed prefix and a unique part" };

const createFields: Record<string, Schema> = {
  browser: { type: "string", description: "An images[].id from GET /image", examples: IMAGES.filter((i) => i.enabled).map((i) => i.id) },
  url: { type: "string", maxLength: MAX_URL_LENGTH, description: "First page to open" },
  language: { type: "string", description: "Browser interface language code; default en", examples: ["en", "de"] },
  layout: { type: "string", description: "Keyboard layout code; default us", examples: ["us", "de"] },
  country: {
    type: "string",
    description: "Country or city code exactly as GET /image lists them, or auto. Needs location access",
    examples: ["us", "us-dal", "auto"],
  },
  egress: { const: "residential", description: "Browse through a residential connection; only the country part of country is used" },
  shareLanguage: { enum: [...SHARE_LOCALES], description: "Viewer language of the share link; default en" },
  callbackUrl: { type: "string", format: "uri", maxLength: MAX_CALLBACK_URL_LENGTH, pattern: "^https?://", description: "Where the viewer goes on leaving" },
  idempotencyKey: {
    type: "string",
    minLength: 1,
    maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
    description: "Repeating the same request with the same key returns the first successful answer",
  },
};

const createAnswerFields: Record<string, Schema> = { status: okStatus, vmId, shareUrl, shareUrlPath, quota: ref("SessionQuota") };

const sessionEntryFields: Record<string, Schema> = {
  id: { type: "string", description: "Session identifier, partly masked" },
  status: { enum: [...SESSION_STATUSES] },
  name: { type: "string", description: "Browser display name" },
  created: { type: "string", format: "date-time", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$" },
};

const { egress: _egress, idempotencyKey: _idem, ...v7CreateFields } = createFields;

const schemas: Record<string, Schema> = {
  Denied: object({ status: { const: "denied" }, message: str }),
  Upgrade: object({ status: { const: "upgrade" }, message: str }),
  Insecure: object({ status: { const: "insecure" }, reason: { type: "string", examples: ["rate_limited"] }, message: str }),
  Error: object({ status: { const: "error" }, message: str }),
  ErrorAnswer: { oneOf: [ref("Denied"), ref("Upgrade"), ref("Insecure"), ref("Error")] },
  V7ErrorAnswer: { oneOf: [ref("Denied"), ref("Insecure"), ref("Error")] },
  RateLimited: object({ status: { const: "insecure" }, reason: { const: "rate_limited" }, message: str }),

  Image: object({ id: str, name: str, enabled: bool }),
  City: object({ code: str, location: str }),
  VpnLocation: object({ code: str, name: str, default: str, cities: { type: "array", items: ref("City") } }),
  Residential: object({ configured: bool, countries: { type: ["array", "null"], items: str } }),
  ImageAnswer: object({
    status: okStatus,
    images: { type: "array", items: ref("Image") },
    vpnLocations: { type: "array", items: ref("VpnLocation"), examples: [VPN_LOCATIONS.slice(0, 1)] },
    residential: ref("Residential"),
  }),

  SessionQuota: object(sessionMeterFields),
  UsageMeter: object(usageMeterFields),
  CreditQuota: object({
    credits_total: { ...nullableInt, description: "null means unlimited" },
    credits_used: int,
    credits_available: nullableInt,
    concurrency_total: int,
    concurrency_used: int,
    concurrency_available: int,
    cycle_start: date,
    cycle_end: { ...date, description: "One calendar month after cycle_start" },
  }),

  CreateRequest: object(createFields, ["browser"]),
  CreateAnswer: {
    description: "location_reason is present exactly when location_applied is false",
    oneOf: [
      object({ ...createAnswerFields, location_applied: { const: true, description: "True when no country was given or its exit was free" } }, [
        "status",
        "vmId",
        "location_applied",
        "shareUrlPath",
        "quota",
      ]),
      object(
        {
          ...createAnswerFields,
          location_applied: { const: false, description: "No free exit in the requested location; the default connection is used" },
          location_reason: { const: "unavailable" },
        },
        ["status", "vmId", "location_applied", "location_reason", "shareUrlPath", "quota"],
      ),
    ],
  },

  SessionEntry: {
    description: "Location fields are present only when a location was requested; location_reason only when it was not applied",
    oneOf: [
      object(sessionEntryFields),
      object({ ...sessionEntryFields, location_applied: { const: true } }),
      object({ ...sessionEntryFields, location_applied: { const: false }, location_reason: { const: "unavailable" } }),
    ],
  },
  DataAnswer: object({ status: okStatus, data: { type: "array", items: ref("SessionEntry") } }),

  RemoveRequest: object({ id: { ...vmId, description: "vmId of the session to end" } }),
  RemoveAnswer: object({ status: okStatus }),

  Pool: object({ subscription_id: str, plan_id: str, plan_name: str, ...usageMeterFields }),
  AccountAnswer: object({
    status: okStatus,
    contact: str,
    feature_programmatic_access: bool,
    has_plan: bool,
    ...usageMeterFields,
    pools: { type: "array", items: ref("Pool") },
  }),
  QuotaAnswer: object({ status: okStatus, has_plan: bool, ...usageMeterFields, pools: { type: "array", items: ref("Pool") } }),

  V7CreateRequest: object({ ...v7CreateFields, country: { type: "string", pattern: "^[a-z]{2}$", description: "Two-letter country code of the VPN location" } }, ["browser"]),
  V7CreateAnswer: object({ status: okStatus, vmId, shareUrl, shareUrlPath, quota: { oneOf: [ref("SessionQuota"), ref("CreditQuota")] } }, ["status", "vmId", "shareUrlPath", "quota"]),
  V7AccountAnswer: object({ status: okStatus, contact: str, feature_programmatic_access: bool, has_plan: bool, ...usageMeterFields }),
  V7QuotaAnswer: object({ status: okStatus, has_plan: bool, ...usageMeterFields }),
};

const json = (schema: Schema) => ({ "application/json": { schema } });

function responses(ok: string, opts: { keyed: boolean; body: boolean; v7?: boolean }): Record<string, unknown> {
  const errors = ref(opts.v7 ? "V7ErrorAnswer" : "ErrorAnswer");
  const out: Record<string, unknown> = {
    "200": { description: "The outcome, told by status", content: json({ oneOf: [ref(ok), errors] }) },
  };
  if (opts.keyed) {
    out["401"] = { description: "Missing or invalid API key", content: json(ref("Denied")) };
    out["403"] = { description: "Programmatic access not enabled for the account", content: json(ref("Denied")) };
  }
  if (opts.body) out["413"] = { description: "Request body too large", content: json(ref("Denied")) };
  out["429"] = {
    description: "Rate limit reached",
    headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } },
    content: json(ref("RateLimited")),
  };
  return out;
}

function operation(id: string, summary: string, ok: string, opts: { keyed: boolean; body?: string; v7?: boolean; params?: unknown[] }) {
  return {
    operationId: id,
    summary,
    ...(opts.keyed ? {} : { security: [] }),
    ...(opts.params ? { parameters: opts.params } : {}),
    ...(opts.body ? { requestBody: { required: true, content: json(ref(opts.body)) } } : {}),
    responses: responses(ok, { keyed: opts.keyed, body: opts.body !== undefined, ...(opts.v7 ? { v7: true } : {}) }),
  };
}

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Remote browser session service (local emulator)",
    version: "8.0.0",
    description:
      "Start remote browser sessions, share them through a link, follow their status, end them and read usage. " +
      "Every answer carries status (ok, denied, upgrade, insecure, error); clients branch on it, not on the HTTP code.",
  },
  servers: [{ url: "http://127.0.0.1:{port}", variables: { port: { default: "8080" } } }],
  security: [{ bearerAuth: [] }],
  paths: {
    "/v8/image": { get: operation("listImages", "Browser images, exit locations and residential coverage", "ImageAnswer", { keyed: false }) },
    "/v8/vm/create": { post: operation("createSession", "Start a session", "CreateAnswer", { keyed: true, body: "CreateRequest" }) },
    "/v8/vm/data": {
      get: operation("sessionStatus", "One session, or the account's sessions of the last month newest first", "DataAnswer", {
        keyed: true,
        params: [{ name: "id", in: "query", required: false, schema: { type: "string" }, description: "A vmId" }],
      }),
    },
    "/v8/vm/remove": { post: operation("removeSession", "End a session", "RemoveAnswer", { keyed: true, body: "RemoveRequest" }) },
    "/v8/user/api": { get: operation("account", "Account, usage meters and pools", "AccountAnswer", { keyed: true }) },
    "/v8/user/quota": { get: operation("quota", "Usage meters and pools", "QuotaAnswer", { keyed: true }) },
    "/v7/vm/create": {
      post: operation("v7CreateSession", "Start a session (version 7)", "V7CreateAnswer", { keyed: true, body: "V7CreateRequest", v7: true }),
    },
    "/v7/user/api": { get: operation("v7Account", "Account and usage (version 7)", "V7AccountAnswer", { keyed: true, v7: true }) },
    "/v7/user/quota": { get: operation("v7Quota", "Usage (version 7)", "V7QuotaAnswer", { keyed: true, v7: true }) },
  },
  components: {
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" } },
    schemas,
  },
} as const;
