import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

async function refused(body: Record<string, unknown>, field: string): Promise<string> {
  const a = await h.post("/v8/vm/create", body);
  expect(a.http).toBe(200);
  expect(a.body.status).toBe("denied");
  expect(a.body.message).toMatch(new RegExp(`^${field}\\b`));
  // A refused start must not have started anything.
  expect(h.emu.control.sessions()).toHaveLength(0);
  return a.body.message as string;
}

describe("POST /v8/vm/create validation", () => {
  it("accepts a request with only a browser", async () => {
    const a = await h.create();
    expect(a.body.status).toBe("ok");
    expect(a.body.vmId).toMatch(/^vm-[0-9a-f]+$/);
  });

  it("refuses a missing browser with denied naming browser and the enabled ids", async () => {
    const message = await refused({}, "browser");
    expect(message).toContain("chrome");
  });

  it("refuses a browser that is not a string", async () => {
    await refused({ browser: 7 }, "browser");
  });

  it("refuses an unknown browser and lists the enabled ids", async () => {
    const message = await refused({ browser: "netscape" }, "browser");
    expect(message).toContain("firefox");
  });

  it("refuses a disabled browser image", async () => {
    const message = await refused({ browser: "safari" }, "browser");
    expect(message).toContain("chrome");
    expect(message).not.toMatch(/enabled browsers:.*safari/);
  });

  it("accepts a url of exactly 10,000 characters", async () => {
    const a = await h.create({ url: `https://example.test/${"a".repeat(10_000 - 21)}` });
    expect(a.body.status).toBe("ok");
  });

  it("refuses a url longer than 10,000 characters with denied", async () => {
    await refused({ browser: "chrome", url: `https://example.test/${"a".repeat(10_000)}` }, "url");
  });

  it("refuses a url that is not a string", async () => {
    await refused({ browser: "chrome", url: ["https://example.test"] }, "url");
  });

  it("accepts language and layout codes", async () => {
    const a = await h.create({ language: "de", layout: "de-ch" });
    expect(a.body.status).toBe("ok");
    expect(h.emu.control.sessions()[0]).toMatchObject({ language: "de", layout: "de-ch" });
  });

  it("defaults language to en and layout to us", async () => {
    await h.create();
    expect(h.emu.control.sessions()[0]).toMatchObject({ language: "en", layout: "us" });
  });

  it("refuses a language that is not a string or not a code", async () => {
    await refused({ browser: "chrome", language: 1 }, "language");
    await refused({ browser: "chrome", language: "not a language!" }, "language");
  });

  it("refuses a layout that is not a string or not a code", async () => {
    await refused({ browser: "chrome", layout: true }, "layout");
    await refused({ browser: "chrome", layout: "" }, "layout");
  });

  it("accepts a country code, a city code and auto", async () => {
    for (const country of ["de", "us-dal", "auto"]) {
      const a = await h.create({ country });
      expect(a.body.status).toBe("ok");
    }
  });

  it("refuses an unsupported location with denied", async () => {
    await refused({ browser: "chrome", country: "zz" }, "country");
    await refused({ browser: "chrome", country: "us-xyz" }, "country");
  });

  it("refuses a location that differs from the listing only in case", async () => {
    await refused({ browser: "chrome", country: "US" }, "country");
  });

  it("refuses a country that is not a string", async () => {
    await refused({ browser: "chrome", country: { code: "us" } }, "country");
  });

  it("refuses an egress other than residential", async () => {
    await refused({ browser: "chrome", egress: "datacenter" }, "egress");
    await refused({ browser: "chrome", egress: 1 }, "egress");
  });

  it("accepts every share language and refuses others", async () => {
    for (const shareLanguage of ["en", "de", "fr", "es", "it", "pt", "ja"]) {
      const a = await h.create({ shareLanguage });
      expect(a.body.status).toBe("ok");
      expect(a.body.shareUrlPath.startsWith(`/${shareLanguage}/s?`)).toBe(true);
      await h.post("/v8/vm/remove", { id: a.body.vmId });
    }
    h.emu.control.reset();
    await refused({ browser: "chrome", shareLanguage: "nl" }, "shareLanguage");
    await refused({ browser: "chrome", shareLanguage: 3 }, "shareLanguage");
  });

  it("accepts an http or https callbackUrl", async () => {
    expect((await h.create({ callbackUrl: "http://example.test/back" })).body.status).toBe("ok");
    expect((await h.create({ callbackUrl: "https://example.test/back?x=1" })).body.status).toBe("ok");
  });

  it("refuses a callbackUrl that is not http or https", async () => {
    await refused({ browser: "chrome", callbackUrl: "javascript:alert(1)" }, "callbackUrl");
    await refused({ browser: "chrome", callbackUrl: "ftp://example.test/" }, "callbackUrl");
    await refused({ browser: "chrome", callbackUrl: "/relative/path" }, "callbackUrl");
  });

  it("refuses a callbackUrl longer than 2,000 characters", async () => {
    await refused({ browser: "chrome", callbackUrl: `https://example.test/${"b".repeat(2_000)}` }, "callbackUrl");
  });

  it("accepts idempotency keys of 1 and 128 characters", async () => {
    expect((await h.create({ idempotencyKey: "k" })).body.status).toBe("ok");
    expect((await h.create({ idempotencyKey: "x".repeat(128) })).body.status).toBe("ok");
  });

  it("refuses an empty idempotencyKey, one of 129 characters and a non-string one", async () => {
    await refused({ browser: "chrome", idempotencyKey: "" }, "idempotencyKey");
    await refused({ browser: "chrome", idempotencyKey: "x".repeat(129) }, "idempotencyKey");
    await refused({ browser: "chrome", idempotencyKey: 12 }, "idempotencyKey");
  });

  it("refuses null for an optional field as a wrong type", async () => {
    await refused({ browser: "chrome", url: null }, "url");
  });

  it("refuses an unknown field naming it", async () => {
    await refused({ browser: "chrome", colour: "blue" }, "colour");
  });

  it("refuses a residential country outside the residential list, using the country part of a city", async () => {
    await refused({ browser: "chrome", egress: "residential", country: "jp" }, "country");
    await refused({ browser: "chrome", egress: "residential", country: "jp-osa" }, "country");
  });
});
