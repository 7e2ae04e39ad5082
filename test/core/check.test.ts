import { describe, expect, it } from "vitest";
import type { SessionProvider } from "../../dynamic/session";
import type { Failure } from "../../core/declaration";
import { UNKNOWN, eventually, thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

const starts = () => t.requests().filter((r) => r.operation === "create" || r.operation === "v7create").length;

/** Runs check and proves from the request log that it started nothing: check may read, never create. */
async function failuresOf(provider: SessionProvider, news: Record<string, unknown>): Promise<Failure[]> {
  const before = starts();
  const { failures } = await provider.check({}, news);
  expect(starts()).toBe(before);
  return failures;
}

/** The one failure of `property`; fails the test when there is none or more than one failure. */
async function onlyFailure(news: Record<string, unknown>, provider = t.provider()): Promise<Failure> {
  const failures = await failuresOf(provider, news);
  expect(failures).toHaveLength(1);
  return failures[0]!;
}

describe("check (v8)", () => {
  it("accepts a complete valid input set and drops null inputs", async () => {
    const news = {
      browser: "chrome",
      url: "https://example.com/",
      language: "de",
      layout: "de",
      country: "us-dal",
      shareLanguage: "ja",
      callbackUrl: "https://example.com/done",
      idempotencyKey: "k".repeat(128),
      readyTimeoutSeconds: 3600,
      requireLocation: true,
      egress: null,
    };
    const { inputs, failures } = await t.provider().check({}, news);
    expect(failures).toEqual([]);
    expect(inputs).not.toHaveProperty("egress");
    expect(inputs).toMatchObject({ browser: "chrome", country: "us-dal", readyTimeoutSeconds: 3600 });
    expect(t.requests("create")).toHaveLength(0);
  });

  it("requires browser", async () => {
    const f = await onlyFailure({ url: "https://example.com/" });
    expect(f.property).toBe("browser");
    expect(f.reason).toMatch(/is required/);
  });

  it("refuses an unknown browser and lists the enabled ones", async () => {
    const f = await onlyFailure({ browser: "netscape" });
    expect(f.property).toBe("browser");
    expect(f.reason).toContain('"netscape" is not a browser image');
    expect(f.reason).toContain("enabled: chrome, firefox, edge, brave");
  });

  it("refuses a disabled browser and lists the enabled ones", async () => {
    const f = await onlyFailure({ browser: "safari" });
    expect(f.property).toBe("browser");
    expect(f.reason).toContain('"safari" is not enabled');
    expect(f.reason).toContain("enabled: chrome, firefox, edge, brave");
  });

  it("refuses a url over 10,000 characters and accepts one of exactly 10,000", async () => {
    const base = "https://example.com/";
    const f = await onlyFailure({ browser: "chrome", url: base + "a".repeat(10_001 - base.length) });
    expect(f).toEqual({ property: "url", reason: "must be at most 10000 characters, got 10001" });
    expect(await failuresOf(t.provider(), { browser: "chrome", url: base + "a".repeat(10_000 - base.length) })).toEqual([]);
  });

  it("refuses a language or layout that is not a code", async () => {
    const lang = await onlyFailure({ browser: "chrome", language: "english!" });
    expect(lang.property).toBe("language");
    expect(lang.reason).toContain("language code");
    const layout = await onlyFailure({ browser: "chrome", layout: "1" });
    expect(layout.property).toBe("layout");
    expect(layout.reason).toContain("keyboard layout code");
    expect(await failuresOf(t.provider(), { browser: "chrome", language: "pt-BR", layout: "us" })).toEqual([]);
  });

  it("refuses an unknown country and lists the valid ones; auto and city codes pass", async () => {
    const f = await onlyFailure({ browser: "chrome", country: "zz" });
    expect(f.property).toBe("country");
    expect(f.reason).toContain('"zz" is not a listed location');
    expect(f.reason).toContain("us, de, uk, fr, jp, nl");
    const provider = t.provider();
    for (const country of ["auto", "jp", "us-dal", "nl-ams"]) {
      expect(await failuresOf(provider, { browser: "chrome", country })).toEqual([]);
    }
  });

  it("refuses an egress other than residential", async () => {
    const f = await onlyFailure({ browser: "chrome", egress: "datacenter" });
    expect(f).toEqual({ property: "egress", reason: 'must be "residential" when set, got "datacenter"' });
  });

  it("refuses a residential connection in a country where none is offered", async () => {
    const f = await onlyFailure({ browser: "chrome", egress: "residential", country: "jp-osa" });
    expect(f.property).toBe("egress");
    expect(f.reason).toContain('not offered in "jp"');
    expect(f.reason).toContain("offered in: us, de, uk, fr, nl");
    expect(await failuresOf(t.provider(), { browser: "chrome", egress: "residential", country: "de-ber" })).toEqual([]);
  });

  it("refuses a residential connection for an account whose plan has no residential allowance", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_no_residential", residentialMb: null });
    const provider = t.provider({ apiKey: "rb_test_no_residential" });
    const f = await onlyFailure({ browser: "chrome", egress: "residential", country: "us" }, provider);
    expect(f.property).toBe("egress");
    expect(f.reason).toContain("no residential data");
  });

  it("refuses a residential connection once the account's residential data of the cycle is used up", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_one_mb", residentialMb: 1 });
    t.emu.control.settings({ residentialBytesPerSecond: 200 * 1024 * 1024 });
    const client = t.client({ apiKey: "rb_test_one_mb" });
    await client.createSession({ browser: "chrome", egress: "residential" });
    await eventually(async () => (await client.quota()).residential_bytes_used_cycle >= 1024 * 1024);
    const f = await onlyFailure({ browser: "chrome", egress: "residential" }, t.provider({ apiKey: "rb_test_one_mb" }));
    expect(f.property).toBe("egress");
    expect(f.reason).toContain("(1 MB) is used up");
  });

  it("refuses a shareLanguage outside the list, naming the list", async () => {
    const f = await onlyFailure({ browser: "chrome", shareLanguage: "nl" });
    expect(f).toEqual({ property: "shareLanguage", reason: 'must be one of en, de, fr, es, it, pt, ja, got "nl"' });
  });

  it("refuses a callbackUrl that is not http(s) or longer than 2,000 characters", async () => {
    const scheme = await onlyFailure({ browser: "chrome", callbackUrl: "javascript:alert(1)" });
    expect(scheme.property).toBe("callbackUrl");
    expect(scheme.reason).toContain("http:// or https://");
    const long = await onlyFailure({ browser: "chrome", callbackUrl: `https://example.com/${"a".repeat(2000)}` });
    expect(long.property).toBe("callbackUrl");
    expect(long.reason).toMatch(/at most 2000 characters, got 2020/);
  });

  it("refuses an idempotencyKey of 0 or 129 characters", async () => {
    const empty = await onlyFailure({ browser: "chrome", idempotencyKey: "" });
    expect(empty).toEqual({ property: "idempotencyKey", reason: "must be 1 to 128 characters, got 0" });
    const long = await onlyFailure({ browser: "chrome", idempotencyKey: "k".repeat(129) });
    expect(long).toEqual({ property: "idempotencyKey", reason: "must be 1 to 128 characters, got 129" });
  });

  it("refuses a readyTimeoutSeconds of 0 or less, over 3600, or not a number", async () => {
    for (const value of [0, -5, 3600.5, 7200]) {
      const f = await onlyFailure({ browser: "chrome", readyTimeoutSeconds: value });
      expect(f).toEqual({ property: "readyTimeoutSeconds", reason: `must be more than 0 and at most 3600, got ${value}` });
    }
    const text = await onlyFailure({ browser: "chrome", readyTimeoutSeconds: "60" });
    expect(text).toEqual({ property: "readyTimeoutSeconds", reason: "must be a number of seconds, got string" });
  });

  it("refuses a requireLocation that is not a boolean", async () => {
    const f = await onlyFailure({ browser: "chrome", requireLocation: "yes" });
    expect(f).toEqual({ property: "requireLocation", reason: "must be a boolean, got string" });
  });

  it("reports every failing property at once", async () => {
    const failures = await failuresOf(t.provider(), { browser: "netscape", shareLanguage: "xx", requireLocation: 1, country: "zz" });
    expect(failures.map((f) => f.property).sort()).toEqual(["browser", "country", "requireLocation", "shareLanguage"]);
  });

  it("lets the unknown value of a preview through for every field", async () => {
    const news = Object.fromEntries(
      ["browser", "url", "language", "layout", "country", "egress", "shareLanguage", "callbackUrl", "idempotencyKey", "readyTimeoutSeconds", "requireLocation"].map((k) => [k, UNKNOWN]),
    );
    expect(await failuresOf(t.provider(), news)).toEqual([]);
    expect(await failuresOf(t.provider({ apiVersion: "v7" }), news)).toEqual([]);
    // Unknown country with a residential connection: the country rule waits for the value.
    expect(await failuresOf(t.provider(), { browser: "chrome", egress: "residential", country: UNKNOWN })).toEqual([]);
  });

  it("reads the account and the catalog once per provider process", async () => {
    const provider = t.provider();
    await failuresOf(provider, { browser: "chrome" });
    await failuresOf(provider, { browser: "firefox", country: "de" });
    expect(t.requests("account")).toHaveLength(1);
    expect(t.requests("image")).toHaveLength(1);
  });

  it("throws a message naming remote-browser:apiKey when the service refuses the key", async () => {
    const err = await thrown(() => t.provider({ apiKey: "rb_test_wrong" }).check({}, { browser: "chrome" }));
    expect(err.code).toBe("key_refused");
    expect(err.message).toContain("remote-browser:apiKey");
    expect(err.message).toContain("invalid API key");
    expect(t.requests("create")).toHaveLength(0);
  });

  it("throws a message naming remote-browser:apiKey when no key is configured", async () => {
    const err = await thrown(() => t.provider({ apiKey: null }).check({}, { browser: "chrome" }));
    expect(err.message).toContain("remote-browser:apiKey");
    expect(t.requests()).toHaveLength(0);
  });

  it("throws when the account has no programmatic access", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_no_api", programmaticAccess: false });
    const err = await thrown(() => t.provider({ apiKey: "rb_test_no_api" }).check({}, { browser: "chrome" }));
    expect(err.code).toBe("key_refused");
    expect(err.message).toContain("programmatic access");
    expect(t.requests("create")).toHaveLength(0);
  });
});

describe("check (v7)", () => {
  it("refuses egress and idempotencyKey, which version 7 does not offer", async () => {
    const failures = await failuresOf(t.provider({ apiVersion: "v7" }), { browser: "chrome", egress: "residential", idempotencyKey: "k1" });
    expect(failures).toEqual([
      { property: "egress", reason: "is not offered by API version 7 (remote-browser:apiVersion is v7)" },
      { property: "idempotencyKey", reason: "is not offered by API version 7 (remote-browser:apiVersion is v7)" },
    ]);
  });

  it("refuses a city code as country", async () => {
    const f = await onlyFailure({ browser: "chrome", country: "us-dal" }, t.provider({ apiVersion: "v7" }));
    expect(f.property).toBe("country");
    expect(f.reason).toBe('API version 7 takes a lower-case two-letter country code such as us or de, got "us-dal"');
  });

  it("checks the key against the version 7 account operation", async () => {
    expect(await failuresOf(t.provider({ apiVersion: "v7" }), { browser: "chrome", country: "de" })).toEqual([]);
    expect(t.requests("v7account")).toHaveLength(1);
    expect(t.requests("account")).toHaveLength(0);
  });
});
