import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness } from "./harness";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.emu.close());

describe("GET /v8/image", () => {
  it("answers without an API key", async () => {
    const a = await h.get("/v8/image", { key: null });
    expect(a.http).toBe(200);
    expect(a.body.status).toBe("ok");
  });

  it("lists at least four images, with at least one disabled", async () => {
    const { body } = await h.get("/v8/image", { key: null });
    expect(body.images.length).toBeGreaterThanOrEqual(4);
    for (const image of body.images) {
      expect(typeof image.id).toBe("string");
      expect(typeof image.name).toBe("string");
      expect(typeof image.enabled).toBe("boolean");
    }
    const ids = body.images.filter((i: any) => i.enabled).map((i: any) => i.id);
    expect(ids).toEqual(expect.arrayContaining(["chrome", "firefox", "edge"]));
    expect(body.images.find((i: any) => i.id === "safari")?.enabled).toBe(false);
  });

  it("lists countries with a default city that is one of their cities", async () => {
    const { body } = await h.get("/v8/image", { key: null });
    const codes = body.vpnLocations.map((l: any) => l.code);
    expect(codes).toEqual(expect.arrayContaining(["us", "de", "uk", "fr", "jp"]));
    for (const location of body.vpnLocations) {
      expect(typeof location.name).toBe("string");
      const cities = location.cities.map((c: any) => c.code);
      expect(cities).toContain(location.default);
      for (const city of location.cities) {
        expect(city.code.startsWith(`${location.code}-`)).toBe(true);
        expect(typeof city.location).toBe("string");
      }
    }
    expect(body.vpnLocations.find((l: any) => l.code === "us").cities.map((c: any) => c.code)).toContain("us-dal");
  });

  it("describes residential coverage", async () => {
    const { body } = await h.get("/v8/image", { key: null });
    expect(body.residential.configured).toBe(true);
    expect(Array.isArray(body.residential.countries)).toBe(true);
    expect(body.residential.countries).toContain("us");
    expect(body.residential.countries).not.toContain("jp");
  });

  it("still answers when a key is sent", async () => {
    const a = await h.get("/v8/image");
    expect(a.body.status).toBe("ok");
  });
});
