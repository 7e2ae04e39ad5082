import { CONFIG_FIELDS } from "../core/config";
import { INPUTS, OUTPUTS, inputDoc, type InputField, type OutputField } from "../core/declaration";
import { FUNCTIONS } from "./functions";

/**
 * The parts of a Pulumi package schema this package reads or writes: the native resource's schema
 * (below) and the components' derived one (packageSchema.ts deriveSchema) both build on them.
 */
export interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  description?: string;
  plain?: boolean;
  secret?: boolean;
}

export interface ResourceSpec {
  isComponent?: boolean;
  description?: string;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
  properties: Record<string, PropertySpec>;
  required: string[];
  /** What the engine's List of the type takes; a type without it is not listed. */
  listInputs?: { properties: Record<string, PropertySpec> };
}

export interface PackageSchema {
  name: string;
  version?: string;
  description?: string;
  resources: Record<string, ResourceSpec>;
  types: Record<string, { type: string; enum?: Array<{ name: string; value: string | number; description?: string }> }>;
  [key: string]: unknown;
}

/**
 * The part of the package schema that the plugin serves natively: the BrowserSession resource, the data
 * sources, the stack config and the explicit provider. Derived from the field table (core/declaration.ts)
 * and the settings table (core/config.ts), so the schema, check, diff and the generated SDKs cannot
 * drift apart; the component's part comes from plugin/schema.json.
 */

/**
 * The closed sets of values, as enums: SDKs offer them as constants and refuse others at compile time.
 * `ShareLanguage` is the component's (plugin/schema.json); check and loadConfig refuse any other value
 * (test/plugin/native-schema.test.ts holds them to these lists).
 */
export const ENUMS = {
  ApiVersion: {
    setting: "apiVersion",
    description: "A version of the service's API.",
    values: [
      { name: "V8", value: "v8", description: "API version 8 (default)." },
      { name: "V7", value: "v7", description: "API version 7: no status or end operation, no egress, no idempotency keys." },
    ],
  },
  Egress: {
    input: "egress",
    description: "How a session's traffic leaves the service.",
    values: [{ name: "Residential", value: "residential", description: "Through a residential connection (needs residential data in the plan)." }],
  },
} as const;

const enumRef = (type: string) => `#/types/remote-browser:index:${type}`;
const ENUM_OF_INPUT: Record<string, string> = { shareLanguage: enumRef("ShareLanguage"), egress: enumRef("Egress") };

function inputSpec(name: string, field: InputField): PropertySpec {
  const base: PropertySpec = ENUM_OF_INPUT[name] ? { $ref: ENUM_OF_INPUT[name] } : { type: field.type };
  return { ...base, description: inputDoc(field, "schema") };
}

function outputSpec(field: OutputField): PropertySpec {
  return { type: field.type, description: field.doc, ...(field.secret ? { secret: true } : {}) };
}

const inputEntries = Object.entries(INPUTS) as Array<[string, InputField]>;
const outputEntries = Object.entries(OUTPUTS) as Array<[string, OutputField]>;

const sessionFilters: Record<string, PropertySpec> = {
  states: { type: "array", items: { type: "string" }, description: "Only sessions in one of these states (starting, running, error, stopping, suspended, deleted)." },
  minAgeMinutes: { type: "number", description: "Only sessions started at least this many minutes ago." },
  maxAgeMinutes: { type: "number", description: "Only sessions started at most this many minutes ago." },
};

export const browserSessionSchema: ResourceSpec = {
  description:
    "A remote browser session. `pulumi up` starts it and waits until it is running; `pulumi destroy` ends it. " +
    "`shareUrl` opens the session for a viewer: it is a password to the session and is kept secret. " +
    "`pulumi import remote-browser:index:BrowserSession <name> <vmId>` takes over a running session of the configured account.",
  inputProperties: Object.fromEntries(inputEntries.map(([n, f]) => [n, inputSpec(n, f)])),
  requiredInputs: inputEntries.filter(([, f]) => f.required).map(([n]) => n),
  properties: {
    ...Object.fromEntries(inputEntries.map(([n, f]) => [n, inputSpec(n, f)])),
    ...Object.fromEntries(outputEntries.map(([n, f]) => [n, outputSpec(f)])),
  },
  required: [...inputEntries.filter(([, f]) => f.required).map(([n]) => n), "vmId", "status", "apiVersion"],
  // What `pulumi do ... list` takes (the engine's List call): getSessions' filters. The ids it lists are masked.
  listInputs: { properties: sessionFilters },
};

const str = (description: string): PropertySpec => ({ type: "string", description });
const int = (description: string): PropertySpec => ({ type: "integer", description });
const bool = (description: string): PropertySpec => ({ type: "boolean", description });
const ref = (type: string, description: string): PropertySpec => ({ $ref: `#/types/remote-browser:index:${type}`, description });
const list = (items: PropertySpec, description: string): PropertySpec => ({ type: "array", items, description });
/** An array's items: a type only (the engine drops descriptions there). */
const of = (type: string): PropertySpec => ({ $ref: `#/types/remote-browser:index:${type}` });

const METER = {
  runningSessionLimit: int("Maximum simultaneous sessions."),
  runningSessionsUsed: int("Sessions currently counted as running."),
  runningSessionsRemaining: int("Free slots under the running limit."),
  cycleSessionLimit: int("Maximum sessions in the current cycle; absent when there is no cap."),
  cycleSessionsUsed: int("Sessions started in the current cycle."),
  cycleSessionsRemaining: int("Sessions left in the cycle; absent when there is no cap."),
  cycleStart: str("Start date of the current cycle (YYYY-MM-DD)."),
  residentialCycleMbLimit: int("Residential data included per cycle, in MB; absent when no allowance applies."),
  residentialBytesUsedCycle: int("Residential data used in the current cycle, in bytes."),
};
const METER_REQUIRED = ["runningSessionLimit", "runningSessionsUsed", "runningSessionsRemaining", "cycleSessionsUsed", "cycleStart", "residentialBytesUsedCycle"];

const object = (description: string, properties: Record<string, PropertySpec>, required: string[]) => ({ type: "object", description, properties, required });

const types = {
  ...Object.fromEntries(Object.entries(ENUMS).map(([name, e]) => [`remote-browser:index:${name}`, { type: "string", description: e.description, enum: e.values }])),
  "remote-browser:index:Image": object("A browser image.", { id: str("Value to pass as `browser`."), name: str("Display name."), enabled: bool("Whether the browser can start right now.") }, [
    "id",
    "name",
    "enabled",
  ]),
  "remote-browser:index:City": object("A city of an exit location.", { code: str("Valid as `country`."), location: str("City name.") }, ["code", "location"]),
  "remote-browser:index:Location": object(
    "An exit location: a country with its cities.",
    {
      code: str("Country code; valid as `country`."),
      name: str("Country name."),
      defaultCity: str("Code of the country's default city."),
      cities: list(of("City"), "The country's cities."),
    },
    ["code", "name", "defaultCity", "cities"],
  ),
  "remote-browser:index:Residential": object(
    "Whether residential connections are configured, and where.",
    {
      configured: bool("Whether residential connections are configured."),
      countries: list({ type: "string" }, "Countries a residential connection can use; absent means every country."),
    },
    ["configured"],
  ),
  "remote-browser:index:UsagePool": object(
    "One subscription's share of the account's meter.",
    { subscriptionId: str("The subscription."), planId: str("Its plan."), planName: str("Its plan's name."), ...METER },
    ["subscriptionId", "planId", "planName", ...METER_REQUIRED],
  ),
  "remote-browser:index:CreditUsage": object(
    "The meter of an API version 7 credit plan, as the service reported it.",
    {
      creditsTotal: int("Credits of the cycle; absent for an unlimited plan."),
      creditsUsed: int("Credits used."),
      creditsAvailable: int("Credits left."),
      concurrencyTotal: int("Simultaneous sessions allowed."),
      concurrencyUsed: int("Simultaneous sessions in use."),
      concurrencyAvailable: int("Free simultaneous slots."),
      cycleStart: str("Start of the cycle."),
      cycleEnd: str("End of the cycle."),
    },
    ["creditsUsed", "concurrencyTotal", "concurrencyUsed", "concurrencyAvailable", "cycleStart", "cycleEnd"],
  ),
  "remote-browser:index:ListedSession": object(
    "A session of the account as the service lists it, its id masked.",
    {
      maskedId: str("The session's id with part of it hidden by the service: it tells sessions apart and matches a recorded vmId when every visible character agrees, but cannot end the session."),
      status: str("One of starting, running, error, stopping, suspended, deleted."),
      browserName: str("Browser display name."),
      created: str("When it was started (ISO 8601)."),
      locationApplied: bool("Present while a requested location is recorded; false when no free exit was there."),
      locationReason: str("Why the location was not applied (`unavailable`)."),
    },
    ["maskedId", "status", "browserName", "created"],
  ),
};

/** A function's doc: the plugin's table of functions states it once (functions.ts). */
const docOf = (token: string): string => FUNCTIONS[token]!.doc;

const functions = {
  "remote-browser:index:getImages": {
    description: docOf("remote-browser:index:getImages"),
    outputs: { properties: { images: list(of("Image"), "The browser images.") }, required: ["images"] },
  },
  "remote-browser:index:getLocations": {
    description: docOf("remote-browser:index:getLocations"),
    outputs: {
      properties: {
        locations: list(of("Location"), "The exit locations."),
        residential: ref("Residential", "The residential descriptor."),
      },
      required: ["locations", "residential"],
    },
  },
  "remote-browser:index:getUsage": {
    description: docOf("remote-browser:index:getUsage"),
    outputs: {
      properties: {
        ...METER,
        hasPlan: bool("Whether the account has a plan."),
        pools: list(of("UsagePool"), "One per subscription behind the totals (empty with API version 7)."),
        meter: str("`sessions` for the session meter; `credits` for an API version 7 credit plan, whose running fields come from its concurrency."),
        credits: ref("CreditUsage", "The credit meter of an API version 7 credit plan."),
      },
      required: [...METER_REQUIRED, "hasPlan", "pools", "meter"],
    },
  },
  "remote-browser:index:getSessions": {
    description: docOf("remote-browser:index:getSessions"),
    inputs: { properties: sessionFilters },
    outputs: { properties: { sessions: list(of("ListedSession"), "The sessions, newest first.") }, required: ["sessions"] },
  },
};

// Each setting's environment fallback is its defaultInfo: generated SDKs read the same variable the plugin does.
const settings = Object.fromEntries(
  Object.entries(CONFIG_FIELDS).map(([k, f]) => [
    k,
    {
      ...(k === ENUMS.ApiVersion.setting ? { $ref: enumRef("ApiVersion") } : { type: f.type }),
      description: `${f.doc} Environment fallback: \`${f.env}\`.`,
      defaultInfo: { environment: [f.env] },
      ...((f as { secret?: boolean }).secret ? { secret: true } : {}),
    },
  ]),
);

/**
 * An explicit provider's inputs are the settings, but for the environment fallback of an enum: Go's code
 * generator writes a string where the enum type belongs, and the SDK does not compile. The plugin reads that
 * variable itself (loadConfig), so an explicit provider falls back to it all the same.
 */
const providerInputs = Object.fromEntries(
  Object.entries(settings).map(([k, v]) => {
    if (!("$ref" in v)) return [k, v];
    const { defaultInfo: _environment, ...rest } = v;
    return [k, rest];
  }),
);

/** The native part of the schema but BrowserSession's own entry (browserSessionSchema, above), merged with the component's by packageSchema.ts. */
export const NATIVE_SCHEMA = {
  config: { variables: settings },
  provider: {
    description: "The remote-browser provider: one account on one service. An explicit instance lets a stack hold sessions of several accounts.",
    type: "object",
    // No outputs: the format leaves out an empty `properties`, as `pulumi package get-schema` does.
    inputProperties: providerInputs,
  },
  functions,
  types,
};
