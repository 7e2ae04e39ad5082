import { describe, expect, it } from "vitest";
import { checkConfig, diffConfig, settingsFrom } from "../../native/providerConfig";
import { isSecret, reveal, secret } from "../../native/secrets";

/** The provider's own settings as the plugin's CheckConfig, DiffConfig and Configure read them. */
describe("CheckConfig", () => {
  const ok = { apiKey: secret("rb_key_0123456789"), baseUrl: "https://api.example.com/v8" };

  it("accepts good settings, numbers as the engine sends them too", () => {
    expect(checkConfig({ ...ok, waitForCapacitySeconds: 30, requestTimeoutSeconds: "20", apiVersion: "v7" }, {}).failures).toEqual([]);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["apiVersion", "v9", /remote-browser:apiVersion must be "v8" or "v7", got "v9"/],
    ["waitForCapacitySeconds", 7200, /waitForCapacitySeconds must be a number of seconds from 0 to 3600, got "7200"/],
    ["requestTimeoutSeconds", "soon", /requestTimeoutSeconds must be a number of seconds/],
    ["idempotencySecret", secret("short"), /idempotencySecret must be at least 16 characters/],
  ];
  for (const [property, value, reason] of bad) {
    it(`refuses a bad ${property}, on that property`, () => {
      const { failures } = checkConfig({ ...ok, [property]: value }, {});
      expect(failures).toEqual([{ property, reason: expect.stringMatching(reason) }]);
    });
  }

  it("refuses a bad value that comes from the environment fallback as well", () => {
    expect(checkConfig(ok, { REMOTE_BROWSER_API_VERSION: "v6" }).failures.map((f) => f.property)).toEqual(["apiVersion"]);
  });

  it("hands the key and the idempotency secret back as secrets even when they came in plain, so the state never holds them in clear", () => {
    const { inputs } = checkConfig({ apiKey: "rb_plain_key_0123", idempotencySecret: "0123456789abcdef0123", baseUrl: "https://api.example.com/v8" }, {});
    expect(isSecret(inputs.apiKey)).toBe(true);
    expect(isSecret(inputs.idempotencySecret)).toBe(true);
    expect(isSecret(inputs.baseUrl)).toBe(false);
    expect(reveal(inputs)).toEqual({ apiKey: "rb_plain_key_0123", idempotencySecret: "0123456789abcdef0123", baseUrl: "https://api.example.com/v8" });
  });

  it("refuses a key without a service address, on baseUrl", () => {
    expect(checkConfig({ apiKey: secret("rb_key_0123456789") }, {}).failures).toEqual([{ property: "baseUrl", reason: expect.stringMatching(/no service address/) }]);
  });

  it("leaves the engine's own provider inputs (version) alone", () => {
    const { inputs, failures } = checkConfig({ ...ok, version: "0.1.0" }, {});
    expect(failures).toEqual([]);
    expect(inputs.version).toBe("0.1.0");
  });
});

describe("DiffConfig", () => {
  it("names the settings that changed, and none when nothing did (secrets compared by value)", () => {
    expect(diffConfig({ apiKey: secret("a"), baseUrl: "x" }, { apiKey: secret("a"), baseUrl: "x" })).toEqual({ changes: false, diffs: [] });
    expect(diffConfig({ apiKey: secret("a"), baseUrl: "x" }, { apiKey: secret("b"), baseUrl: "x" })).toEqual({ changes: true, diffs: ["apiKey"] });
  });
});

describe("Configure's settings", () => {
  it("reads the provider's inputs first, then the stack config's variables, secrets unwrapped", () => {
    const get = settingsFrom({ apiKey: secret("from-args"), waitForCapacitySeconds: 12 }, new Map([["remote-browser:baseUrl", "https://v.example.com"], ["remote-browser:apiKey", "from-vars"]]));
    expect(get("apiKey")).toBe("from-args");
    expect(get("waitForCapacitySeconds")).toBe("12");
    expect(get("baseUrl")).toBe("https://v.example.com");
    expect(get("apiVersion")).toBeUndefined();
  });
});
