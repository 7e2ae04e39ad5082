import { describe, expect, it } from "vitest";
import { DEFAULT_BASE_URL, baseUrlHasCredentials, loadConfig, secretSettingOf } from "../../core/config";
import * as entry from "../../dynamic";
import { thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

const from = (values: Record<string, string | undefined>) => (key: string) => values[key];

/** The three settings these tests are about (the config may carry others). */
const core = ({ apiKey, baseUrl, apiVersion }: ReturnType<typeof loadConfig>) => ({ apiKey, baseUrl, apiVersion });

describe("loadConfig", () => {
  it("reads the stack's config keys first", () => {
    const cfg = loadConfig(from({ apiKey: "rb_cfg", baseUrl: "https://cfg.example.invalid/v8", apiVersion: "v7" }), {
      REMOTE_BROWSER_API_KEY: "rb_env",
      REMOTE_BROWSER_BASE_URL: "https://env.example.invalid/v8",
      REMOTE_BROWSER_API_VERSION: "v8",
    });
    expect(core(cfg)).toEqual({ apiKey: "rb_cfg", baseUrl: "https://cfg.example.invalid/v8", apiVersion: "v7" });
  });

  it("falls back to REMOTE_BROWSER_API_KEY and REMOTE_BROWSER_BASE_URL", () => {
    const cfg = loadConfig(from({}), { REMOTE_BROWSER_API_KEY: "rb_env", REMOTE_BROWSER_BASE_URL: "https://env.example.invalid/v8" });
    expect(core(cfg)).toEqual({ apiKey: "rb_env", baseUrl: "https://env.example.invalid/v8", apiVersion: "v8" });
  });

  it("treats a blank config value as unset", () => {
    const cfg = loadConfig(from({ apiKey: "  ", baseUrl: "" }), { REMOTE_BROWSER_API_KEY: "rb_env", REMOTE_BROWSER_BASE_URL: "https://env.example.invalid" });
    expect(cfg.apiKey).toBe("rb_env");
    expect(cfg.baseUrl).toBe("https://env.example.invalid");
  });

  it("defaults to the local emulator's address, version 8 and no key", () => {
    expect(core(loadConfig(from({}), {}))).toEqual({ apiKey: undefined, baseUrl: DEFAULT_BASE_URL, apiVersion: "v8" });
    expect(DEFAULT_BASE_URL).toBe("http://127.0.0.1:8788/v8");
  });

  it("refuses a key without a service address, naming both settings and why, rather than send it to the default", () => {
    for (const [values, env] of [
      [{ apiKey: "rb_cfg" }, {}],
      [{}, { REMOTE_BROWSER_API_KEY: "rb_env" }],
      [{ apiKey: "rb_cfg", baseUrl: " " }, { REMOTE_BROWSER_BASE_URL: "" }],
    ] as Array<[Record<string, string>, NodeJS.ProcessEnv]>) {
      const err = (() => {
        try {
          loadConfig(from(values), env);
        } catch (e) {
          return e as Error & { code?: string };
        }
        throw new Error("expected loadConfig to throw");
      })();
      expect(err.code).toBe("configuration");
      expect(err.message).toContain("remote-browser:baseUrl");
      expect(err.message).toContain("REMOTE_BROWSER_BASE_URL");
      expect(err.message).toContain(`plain HTTP to the default ${DEFAULT_BASE_URL}`);
      expect(err.message).not.toContain("rb_cfg");
      expect(err.message).not.toContain("rb_env");
    }
    // An address said explicitly is taken, even the emulator's default one.
    expect(loadConfig(from({ apiKey: "rb_cfg" }), { REMOTE_BROWSER_BASE_URL: DEFAULT_BASE_URL }).baseUrl).toBe(DEFAULT_BASE_URL);
    expect(loadConfig(from({ baseUrl: "https://api.example.invalid/v8" }), { REMOTE_BROWSER_API_KEY: "rb_env" }).apiKey).toBe("rb_env");
  });

  it("refuses an apiVersion other than v8 or v7, naming the config key", () => {
    const err = (() => {
      try {
        loadConfig(from({ apiVersion: "v9" }), {});
      } catch (e) {
        return e as Error & { code?: string };
      }
      throw new Error("expected loadConfig to throw");
    })();
    expect(err.code).toBe("configuration");
    expect(err.message).toBe('remote-browser:apiVersion must be "v8" or "v7" (the value given is neither; it is not repeated here)');
    expect(() => loadConfig(from({}), { REMOTE_BROWSER_API_VERSION: "8" })).toThrow(/remote-browser:apiVersion/);
  });
});

describe("structured values (`pulumi config set --path`), as a program and the dynamic provider receive them: JSON text", () => {
  it("refuses an object or list as apiKey, never sending its text as the bearer key, and without repeating it", () => {
    for (const [text, what] of [
      ['{"k":"rb_live_in_an_object_0123"}', "an object"],
      ['["rb_live_in_a_list_0123"]', "a list"],
    ] as const) {
      const err = (() => {
        try {
          loadConfig(from({ apiKey: text, baseUrl: "https://api.example.invalid/v8" }), {});
        } catch (e) {
          return e as Error & { code?: string };
        }
        throw new Error("expected loadConfig to throw");
      })();
      expect(err.code).toBe("configuration");
      expect(err.message).toContain(`remote-browser:apiKey must be a string, got ${what}`);
      expect(err.message).toContain("`pulumi config set --secret remote-browser:apiKey`");
      expect(err.message).not.toContain("rb_live");
    }
    // A key that merely contains braces is still a key.
    expect(loadConfig(from({ apiKey: "rb_{not_json", baseUrl: "https://api.example.invalid/v8" }), {}).apiKey).toBe("rb_{not_json");
  });

  it("refuses one through the dynamic provider's configure as well", async () => {
    const config: Record<string, string> = { "remote-browser:apiKey": '{"k":"rb_live_in_an_object_0123"}', "remote-browser:baseUrl": t.emu.apiBaseUrl };
    const err = await thrown(() => entry.configure({ config: { get: (key: string) => config[key] } }));
    expect(err.message).toMatch(/remote-browser:apiKey must be a string, got an object/);
    expect(t.requests()).toHaveLength(0);
  });
});

describe("baseUrlHasCredentials", () => {
  it("sees a user name or a password in the address, also where the URL does not parse", () => {
    expect(baseUrlHasCredentials("https://user:pw@api.example.com/v8")).toBe(true);
    expect(baseUrlHasCredentials("https://user@api.example.com/v8")).toBe(true);
    expect(baseUrlHasCredentials("https://us er:p w@api.example.com/v8")).toBe(true);
    expect(baseUrlHasCredentials("https://api.example.com/v8")).toBe(false);
    expect(baseUrlHasCredentials("https://api.example.com/v8/a@b")).toBe(false);
    expect(baseUrlHasCredentials(undefined)).toBe(false);
  });
});

describe("secretSettingOf: the one rule for a credential's config key, in any spelling", () => {
  it("knows each credential as Pulumi reads it (ns:config:key is ns:key) and as a tired user types it", () => {
    for (const key of ["remote-browser:apiKey", "remote-browser:config:apiKey", "remote-browser:apikey", "remote-browser:API_KEY", " remote-browser:api-key"]) {
      expect(secretSettingOf(key), key).toBe("apiKey");
    }
    expect(secretSettingOf("remote-browser:config:idempotencySecret")).toBe("idempotencySecret");
  });

  it("leaves every other key alone", () => {
    for (const key of ["remote-browser:baseUrl", "other:apiKey", "apiKey", "remote-browser:apiKeys", "remote-browser-x:apiKey"]) {
      expect(secretSettingOf(key), key).toBeUndefined();
    }
  });
});

describe("SessionProvider.configure", () => {
  it("refuses an invalid apiVersion", () => {
    expect(() => t.provider().configure(from({ apiVersion: "latest" }), {})).toThrow(/apiVersion must be "v8" or "v7"/);
  });

  it("takes the key and address from the environment when the config has none", async () => {
    const provider = t.provider();
    provider.configure(from({}), { REMOTE_BROWSER_API_KEY: t.emu.apiKey, REMOTE_BROWSER_BASE_URL: t.emu.apiBaseUrl });
    expect((await provider.check({}, { browser: "chrome" })).failures).toEqual([]);
    expect(t.requests("account")).toHaveLength(1);
  });

  it("refuses a key from the environment when no address is configured, before any request", () => {
    const provider = t.provider();
    expect(() => provider.configure(from({}), { REMOTE_BROWSER_API_KEY: t.emu.apiKey })).toThrow(/remote-browser:baseUrl or REMOTE_BROWSER_BASE_URL/);
    expect(t.requests()).toHaveLength(0);
  });

  it("starts over with a new client when configured again", async () => {
    const provider = t.provider({ apiKey: "rb_test_wrong" });
    await expect(provider.check({}, { browser: "chrome" })).rejects.toThrow(/remote-browser:apiKey/);
    provider.configure(from({ apiKey: t.emu.apiKey, baseUrl: t.emu.apiBaseUrl }), {});
    expect((await provider.check({}, { browser: "chrome" })).failures).toEqual([]);
  });
});

describe("the provider entry point (what the stored provider calls)", () => {
  it("reads its settings from the remote-browser namespace of the configure request", async () => {
    const config = { "remote-browser:apiKey": t.emu.apiKey, "remote-browser:baseUrl": t.emu.apiBaseUrl };
    await entry.configure({ config: { get: (key: string) => config[key as keyof typeof config] } });
    expect((await entry.check({}, { browser: "firefox", country: "nl" })).failures).toEqual([]);
    expect(t.requests("account")).toHaveLength(1);
  });

  it("refuses a wrong key from the namespace with a message naming it", async () => {
    const config: Record<string, string> = { "remote-browser:apiKey": "rb_test_wrong", "remote-browser:baseUrl": t.emu.apiBaseUrl };
    await entry.configure({ config: { get: (key: string) => config[key] } });
    const err = await thrown(() => entry.check({}, { browser: "chrome" }));
    expect(err.message).toContain("remote-browser:apiKey");
    expect(err.message).not.toContain("rb_test_wrong");
  });
});
