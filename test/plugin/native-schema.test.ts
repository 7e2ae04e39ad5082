import { describe, expect, it } from "vitest";
import { ENUMS, NATIVE_SCHEMA } from "../../plugin/nativeSchema";
import { browserSessionSchema } from "../../plugin/nativeSchema";
import { FUNCTIONS } from "../../plugin/functions";
import { CONFIG_FIELDS, ConfigError, loadConfig } from "../../core/config";
import { usageResult } from "../../core/dataSources";
import { INPUTS, OUTPUTS } from "../../core/declaration";
import { useEmulator } from "../helpers/emulator";

/**
 * The natively served part of the schema is derived from the field and settings tables: what generated
 * SDKs and YAML see is what check, diff and the state do. And what the functions return is what the schema
 * declares, checked on real answers.
 */
const session = browserSessionSchema as {
  inputProperties: Record<string, { type?: string; $ref?: string; secret?: boolean }>;
  properties: Record<string, { type?: string; $ref?: string; secret?: boolean }>;
  requiredInputs: string[];
  required: string[];
};

describe("BrowserSession in the schema", () => {
  it("takes every input of the field table, typed as the table says, browser required", () => {
    expect(Object.keys(session.inputProperties)).toEqual(Object.keys(INPUTS));
    for (const [name, field] of Object.entries(INPUTS)) {
      const p = session.inputProperties[name]!;
      expect(p.type ?? "string", name).toBe(field.type);
    }
    expect(session.inputProperties.shareLanguage!.$ref).toBe("#/types/remote-browser:index:ShareLanguage");
    expect(session.inputProperties.egress!.$ref).toBe("#/types/remote-browser:index:Egress");
    expect(session.requiredInputs).toEqual(["browser"]);
  });

  it("has every output but the hidden ones, with exactly the share link secret", () => {
    const visible = Object.entries(OUTPUTS)
      .filter(([, f]) => !(f as { hidden?: boolean }).hidden)
      .map(([n]) => n);
    expect(Object.keys(session.properties)).toEqual([...Object.keys(INPUTS), ...visible]);
    const secrets = Object.entries(session.properties)
      .filter(([, p]) => p.secret)
      .map(([n]) => n);
    expect(secrets).toEqual(["shareUrl", "shareUrlPath"]);
    expect(session.properties).not.toHaveProperty("__idempotencyKey");
  });

  it("declares the provider's settings for stack config and explicit providers alike, the key and the idempotency secret secret", () => {
    // Alike but for the enum's environment fallback, which Go's generator cannot write (the plugin reads it).
    const { apiVersion: configVersion, ...config } = NATIVE_SCHEMA.config.variables;
    const { apiVersion: providerVersion, ...provider } = NATIVE_SCHEMA.provider.inputProperties;
    expect(provider).toEqual(config);
    expect({ ...providerVersion, defaultInfo: { environment: [CONFIG_FIELDS.apiVersion.env] } }).toEqual(configVersion);
    expect(Object.keys(NATIVE_SCHEMA.config.variables)).toEqual(Object.keys(CONFIG_FIELDS));
    const secrets = Object.entries(NATIVE_SCHEMA.config.variables)
      .filter(([, v]) => (v as { secret?: boolean }).secret)
      .map(([k]) => k);
    expect(secrets).toEqual(["apiKey", "idempotencySecret"]);
  });

  it("gives every setting its environment fallback as defaultInfo, so generated SDKs read the variable the plugin reads", () => {
    for (const [name, field] of Object.entries(CONFIG_FIELDS)) {
      const variable = (NATIVE_SCHEMA.config.variables as Record<string, { defaultInfo?: unknown; description: string }>)[name]!;
      expect(variable.defaultInfo, name).toEqual({ environment: [field.env] });
      expect(variable.description, name).toContain(field.env);
    }
  });

  it("offers the API versions and egress as enums of exactly the values loadConfig and check accept", () => {
    const types = NATIVE_SCHEMA.types as Record<string, { type: string; enum?: Array<{ value: string }> }>;
    const values = (type: string) => types[`remote-browser:index:${type}`]!.enum!.map((e) => e.value);
    expect(NATIVE_SCHEMA.config.variables.apiVersion).toMatchObject({ $ref: "#/types/remote-browser:index:ApiVersion" });
    expect(NATIVE_SCHEMA.provider.inputProperties.apiVersion).toMatchObject({ $ref: "#/types/remote-browser:index:ApiVersion" });
    expect(values("ApiVersion")).toEqual(["v8", "v7"]);
    for (const v of values("ApiVersion")) expect(loadConfig((k) => (k === "apiVersion" ? v : undefined), {}).apiVersion).toBe(v);
    expect(() => loadConfig((k) => (k === "apiVersion" ? "v9" : undefined), {})).toThrow(ConfigError);
    expect(values("Egress")).toEqual(["residential"]);
    const egress = INPUTS.egress.rule as (v: string) => string | undefined;
    for (const v of values("Egress")) expect(egress(v)).toBeUndefined();
    expect(egress("datacenter")).toMatch(/must be "residential"/);
    expect(Object.keys(ENUMS).map((n) => types[`remote-browser:index:${n}`]!.type)).toEqual(["string", "string"]);
  });

  it("declares exactly the functions the plugin serves", () => {
    expect(Object.keys(NATIVE_SCHEMA.functions)).toEqual(Object.keys(FUNCTIONS));
  });

  it("declares as inputs exactly the arguments each function accepts", () => {
    for (const [token, fn] of Object.entries(FUNCTIONS)) {
      const inputs = (NATIVE_SCHEMA.functions as Record<string, { inputs?: { properties: object } }>)[token]!.inputs;
      const accepted = fn.args ? Object.keys((fn.args as unknown as { shape: object }).shape) : [];
      expect(Object.keys(inputs?.properties ?? {}), token).toEqual(accepted);
    }
  });
});

type Spec = { type?: string; $ref?: string; items?: Spec; properties?: Record<string, Spec>; required?: string[] };
const TYPES = NATIVE_SCHEMA.types as unknown as Record<string, Spec>;

/** Where `value` does not fit `spec` (nulls count as absent: the engine drops them). */
function misfits(value: unknown, spec: Spec, at: string): string[] {
  if (value === null || value === undefined) return [];
  if (spec.$ref) return misfits(value, TYPES[spec.$ref.replace("#/types/", "")]!, at);
  switch (spec.type) {
    case "array":
      return Array.isArray(value) ? value.flatMap((v, i) => misfits(v, spec.items!, `${at}[${i}]`)) : [`${at} is not an array`];
    case "object": {
      if (typeof value !== "object") return [`${at} is not an object`];
      const o = value as Record<string, unknown>;
      return [
        ...Object.keys(o)
          .filter((k) => !(k in spec.properties!))
          .map((k) => `${at}.${k} is not declared`),
        ...(spec.required ?? []).filter((k) => o[k] === undefined || o[k] === null).map((k) => `${at}.${k} is required but absent`),
        ...Object.entries(spec.properties!).flatMap(([k, s]) => misfits(o[k], s, `${at}.${k}`)),
      ];
    }
    case "integer":
      return Number.isInteger(value) ? [] : [`${at} is not an integer`];
    default:
      return typeof value === spec.type ? [] : [`${at} is not a ${spec.type}`];
  }
}

describe("the functions' answers", () => {
  const t = useEmulator();
  for (const [token, fn] of Object.entries(FUNCTIONS)) {
    it(`${token} answers what the schema declares`, async () => {
      const outputs = (NATIVE_SCHEMA.functions as Record<string, { outputs: Spec }>)[token]!.outputs;
      // Sessions with and without a location, so that the listing has entries of both shapes.
      await t.client().createSession({ browser: "chrome" });
      t.emu.control.settings({ locationCapacity: { de: 0 } });
      await t.client().createSession({ browser: "firefox", country: "de" });
      const answer = await fn.run(t.provider().ctx, {} as never);
      expect(misfits(answer, { type: "object", ...outputs }, token.split(":")[2]!)).toEqual([]);
    });
  }

  // The emulator answers /v7/user/quota with the session meter for every plan, so the credit meter is the
  // spec's own example shape, shaped by the same code the invoke runs.
  it("getUsage of a version 7 credit plan answers what the schema declares", async () => {
    const quota = {
      status: "ok",
      has_plan: true,
      credits_total: null,
      credits_used: 7,
      credits_available: null,
      concurrency_total: 4,
      concurrency_used: 1,
      concurrency_available: 3,
      cycle_start: "2026-11-01",
      cycle_end: "2026-12-01",
    };
    const outputs = (NATIVE_SCHEMA.functions as Record<string, { outputs: Spec }>)["remote-browser:index:getUsage"]!.outputs;
    const answer = (await usageResult({ v7: { quota: async () => quota } } as never, "v7")) as unknown as Record<string, unknown>;
    expect(answer.meter).toBe("credits");
    expect(misfits(JSON.parse(JSON.stringify(answer)), { type: "object", ...outputs }, "getUsage")).toEqual([]);
  });
});
