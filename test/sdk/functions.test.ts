/**
 * The data sources against a real emulator, configured the way a program is: through the stack's
 * `remote-browser` config or the REMOTE_BROWSER_* environment fallbacks.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { startEmulator } from "../../emulator";
import { IMAGES, RESIDENTIAL, VPN_LOCATIONS } from "../../emulator/catalog";
import type { GetUsageResult, UsageMeterFields } from "../../sdk";
import { getImages, getImagesOutput, getLocations, getLocationsOutput, getSessions, getSessionsOutput, getUsage, getUsageOutput } from "../../sdk";
import { isMasked, maskedIdMatches } from "../../client";
import { isolateConfig, rejection, setStackConfig } from "./config";
import { useMockEngine, value } from "./mocks";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

useMockEngine();
isolateConfig();

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ prepMs: 20, prepJitterMs: 0 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => {
  setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: emu.apiKey });
});

/** A raw call of the emulator's HTTP API, for the values the data sources should report. */
async function api(path: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<any> {
  const res = await fetch(`${emu.origin}${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${init.key ?? emu.apiKey}`,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return res.json();
}

const SNAKE: Record<keyof UsageMeterFields, string> = {
  runningSessionLimit: "running_session_limit",
  runningSessionsUsed: "running_sessions_used",
  runningSessionsRemaining: "running_sessions_remaining",
  cycleSessionLimit: "cycle_session_limit",
  cycleSessionsUsed: "cycle_sessions_used",
  cycleSessionsRemaining: "cycle_sessions_remaining",
  cycleStart: "cycle_start",
  residentialCycleMbLimit: "residential_cycle_mb_limit",
  residentialBytesUsedCycle: "residential_bytes_used_cycle",
};
const METER_KEYS = Object.keys(SNAKE) as (keyof UsageMeterFields)[];

/** The camelCase meter of a snake_case answer. */
function camelMeter(answer: Record<string, unknown>): UsageMeterFields {
  return Object.fromEntries(METER_KEYS.map((k) => [k, answer[SNAKE[k]]])) as unknown as UsageMeterFields;
}

function meterOf(u: UsageMeterFields): UsageMeterFields {
  return Object.fromEntries(METER_KEYS.map((k) => [k, u[k]])) as unknown as UsageMeterFields;
}

describe("getImages", () => {
  it("lists the emulator's images with id, name and enabled, including the disabled one", async () => {
    const result = await getImages();
    expect(result).toEqual({ images: IMAGES.map(({ id, name, enabled }) => ({ id, name, enabled })) });
    expect(result.images.find((i) => i.id === "safari")).toEqual({ id: "safari", name: "Apple Safari", enabled: false });
    expect(result.images.filter((i) => i.enabled).map((i) => i.id)).toEqual(["chrome", "firefox", "edge", "brave"]);
  });

  it("needs no API key", async () => {
    setStackConfig({ baseUrl: emu.apiBaseUrl });
    expect((await getImages()).images).toHaveLength(IMAGES.length);
  });

  it("takes baseUrl from its options over the stack config", async () => {
    setStackConfig({ baseUrl: "http://127.0.0.1:9/v8", apiKey: emu.apiKey });
    expect((await getImages({ baseUrl: emu.apiBaseUrl })).images).toHaveLength(IMAGES.length);
  });

  it("takes a key without a baseUrl in the stack config only with a baseUrl in its options", async () => {
    setStackConfig({ apiKey: emu.apiKey });
    expect((await getUsage({ baseUrl: emu.apiBaseUrl })).hasPlan).toBe(true);
    const err = await rejection(getUsage());
    expect(err.code).toBe("configuration");
    expect(err.message).toContain("remote-browser:baseUrl");
  });

  it("falls back to REMOTE_BROWSER_BASE_URL when the stack config has no baseUrl", async () => {
    setStackConfig({});
    process.env.REMOTE_BROWSER_BASE_URL = emu.apiBaseUrl;
    expect((await getImages()).images.map((i) => i.id)).toEqual(IMAGES.map((i) => i.id));
  });

  it("getImagesOutput resolves to the same value and accepts Input options", async () => {
    const direct = await getImages();
    expect(await value(getImagesOutput())).toEqual(direct);
    setStackConfig({ baseUrl: "http://127.0.0.1:9/v8" });
    expect(await value(getImagesOutput(pulumi.output({ baseUrl: emu.apiBaseUrl })))).toEqual(direct);
    expect(await value(getImagesOutput(Promise.resolve({ baseUrl: emu.apiBaseUrl })))).toEqual(direct);
  });
});

describe("getLocations", () => {
  it("lists countries with code, name, defaultCity and cities, and the residential descriptor", async () => {
    const result = await getLocations();
    expect(result).toEqual({
      locations: VPN_LOCATIONS.map((l) => ({
        code: l.code,
        name: l.name,
        defaultCity: l.default,
        cities: l.cities.map(({ code, location }) => ({ code, location })),
      })),
      residential: { configured: RESIDENTIAL.configured, countries: RESIDENTIAL.countries },
    });
    expect(result.locations.find((l) => l.code === "us")).toEqual({
      code: "us",
      name: "United States",
      defaultCity: "us-nyc",
      cities: [
        { code: "us-nyc", location: "New York" },
        { code: "us-dal", location: "Dallas" },
        { code: "us-lax", location: "Los Angeles" },
      ],
    });
    expect(result.residential).toEqual({ configured: true, countries: ["us", "de", "uk", "fr", "nl"] });
  });

  it("getLocationsOutput resolves to the same value and accepts Input options", async () => {
    const direct = await getLocations();
    expect(await value(getLocationsOutput())).toEqual(direct);
    setStackConfig({ baseUrl: "http://127.0.0.1:9/v8" });
    expect(await value(getLocationsOutput(pulumi.output({ baseUrl: emu.apiBaseUrl })))).toEqual(direct);
  });
});

describe("getUsage (version 8)", () => {
  // A residential session that ran for a moment and ended: its data use is non-zero and no longer grows,
  // so the meter read by getUsage and the one read raw afterwards agree.
  beforeAll(async () => {
    const started = await api("/v8/vm/create", { method: "POST", body: { browser: "chrome", egress: "residential", country: "de" } });
    expect(started.status).toBe("ok");
    const vmId: string = started.vmId;
    const deadline = Date.now() + 5000;
    while (emu.control.sessions().find((s) => s.vmId === vmId)?.status !== "running") {
      if (Date.now() > deadline) throw new Error("the residential session did not start");
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 150));
    emu.control.endSession(vmId);
  });

  it("reports the account's meter in camelCase, with its pools", async () => {
    const usage = await getUsage();
    const raw = await api("/v8/user/quota");
    expect(raw.status).toBe("ok");
    expect(Object.keys(usage).sort()).toEqual([...METER_KEYS, "hasPlan", "meter", "pools"].sort());
    expect(meterOf(usage)).toEqual(camelMeter(raw));
    expect(usage).toMatchObject({
      hasPlan: true,
      meter: "sessions",
      runningSessionLimit: 5,
      cycleSessionLimit: null,
      cycleSessionsRemaining: null,
      residentialCycleMbLimit: 1024,
    });
    expect(usage.cycleStart).toMatch(/^\d{4}-\d{2}-01$/);
    expect(usage.residentialBytesUsedCycle).toBeGreaterThan(0);
    expect(usage.credits).toBeUndefined();
    expect(usage.pools).toEqual(
      raw.pools.map((p: Record<string, unknown>) => ({
        subscriptionId: p.subscription_id,
        planId: p.plan_id,
        planName: p.plan_name,
        ...camelMeter(p),
      })),
    );
    expect(usage.pools.map((p) => [p.subscriptionId, p.planId, p.planName])).toEqual([
      ["sub_1_base", "team-monthly", "Team (monthly)"],
      ["sub_1_addon", "sessions-addon", "Extra sessions add-on"],
    ]);
  });

  it("has pools whose meters add up to the totals", async () => {
    const usage = await getUsage();
    const sum = (k: keyof UsageMeterFields) => usage.pools.reduce((acc, p) => acc + (p[k] as number), 0);
    for (const k of ["runningSessionLimit", "runningSessionsUsed", "runningSessionsRemaining", "cycleSessionsUsed", "residentialCycleMbLimit", "residentialBytesUsedCycle"] as const) {
      expect(sum(k), k).toBe(usage[k]);
    }
    expect(usage.pools.every((p) => p.cycleStart === usage.cycleStart)).toBe(true);
  });

  it("counts a session started through the API as one more running session", async () => {
    const before = await getUsage();
    const started = await api("/v8/vm/create", { method: "POST", body: { browser: "chrome" } });
    expect(started.status).toBe("ok");
    const after = await getUsage();
    expect(after.runningSessionsUsed).toBe(before.runningSessionsUsed + 1);
    expect(after.runningSessionsRemaining).toBe(before.runningSessionsRemaining - 1);
    expect(after.cycleSessionsUsed).toBe(before.cycleSessionsUsed + 1);
    expect(after.pools.reduce((acc, p) => acc + p.runningSessionsUsed, 0)).toBe(after.runningSessionsUsed);
  });

  it("getUsageOutput resolves to the same value and accepts Input options", async () => {
    const direct = await getUsage();
    expect(await value(getUsageOutput())).toEqual(direct);
    setStackConfig({ baseUrl: "http://127.0.0.1:9/v8", apiKey: emu.apiKey });
    expect(await value(getUsageOutput(pulumi.output({ baseUrl: emu.apiBaseUrl })))).toEqual(direct);
  });

  it("reports hasPlan false, zero limits and no pools for an account without a plan", async () => {
    const NO_PLAN_KEY = "rb_test_sdk_no_plan";
    emu.control.addAccount({ apiKey: NO_PLAN_KEY, hasPlan: false });
    setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: NO_PLAN_KEY });
    const usage = await getUsage();
    expect(usage).toMatchObject({ hasPlan: false, meter: "sessions", pools: [], runningSessionLimit: 0, runningSessionsUsed: 0 });
    expect(meterOf(usage)).toEqual(camelMeter(await api("/v8/user/quota", { key: NO_PLAN_KEY })));
  });

  it("falls back to REMOTE_BROWSER_API_KEY and REMOTE_BROWSER_BASE_URL", async () => {
    setStackConfig({});
    process.env.REMOTE_BROWSER_API_KEY = emu.apiKey;
    process.env.REMOTE_BROWSER_BASE_URL = emu.apiBaseUrl;
    const usage = await getUsage();
    expect(usage.meter).toBe("sessions");
    expect(usage.runningSessionLimit).toBe(5);
  });
});

describe("getUsage (version 7)", () => {
  const SESSIONS_KEY = "rb_test_v7_sessions_plan";
  beforeAll(() => {
    emu.control.addAccount({ apiKey: SESSIONS_KEY, v7Plan: "sessions", runningLimit: 3, cycleLimit: 40 });
  });

  it("reads the version 7 quota when remote-browser:apiVersion is v7, with no pools", async () => {
    setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: emu.apiKey, apiVersion: "v7" });
    emu.control.clearRequests();
    const usage: GetUsageResult = await getUsage();
    const paths = emu.control.requests().map((r) => r.path);
    expect(paths.some((p) => p.startsWith("/v7/user/quota"))).toBe(true);
    expect(paths.some((p) => p.startsWith("/v8/"))).toBe(false);
    const raw = await api("/v7/user/quota");
    expect(meterOf(usage)).toEqual(camelMeter(raw));
    expect(usage).toMatchObject({ hasPlan: true, meter: "sessions", pools: [], runningSessionLimit: 5 });
    expect(usage.credits).toBeUndefined();
  });

  it("reports meter sessions for a sessions-plan account", async () => {
    setStackConfig({ baseUrl: emu.v7BaseUrl, apiKey: SESSIONS_KEY, apiVersion: "v7" });
    const usage = await getUsage();
    expect(usage).toMatchObject({
      meter: "sessions",
      hasPlan: true,
      pools: [],
      runningSessionLimit: 3,
      runningSessionsUsed: 0,
      runningSessionsRemaining: 3,
      cycleSessionLimit: 40,
      cycleSessionsRemaining: 40,
    });
    expect(usage.credits).toBeUndefined();
  });

  // The emulator answers /v7/user/quota with the session meter for every plan (it gives the credit meter
  // only in the start answer), so a credit-meter quota answer comes from a one-route loopback stub.
  it("reports meter credits and the credits object when the quota answer is a credit meter", async () => {
    const CREDITS_KEY = "rb_test_v7_credits_plan";
    const answer = {
      status: "ok",
      has_plan: true,
      credits_total: 100,
      credits_used: 7,
      credits_available: 93,
      concurrency_total: 4,
      concurrency_used: 1,
      concurrency_available: 3,
      cycle_start: "2026-11-01",
      cycle_end: "2026-12-01",
    };
    const seen: { path?: string; auth?: string }[] = [];
    const stub = createServer((req, res) => {
      seen.push({ path: req.url, auth: req.headers.authorization });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(req.url === "/v7/user/quota" ? answer : { status: "denied", message: "unknown route" }));
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = stub.address() as AddressInfo;
      setStackConfig({ baseUrl: `http://127.0.0.1:${port}/v7`, apiKey: CREDITS_KEY, apiVersion: "v7" });
      const usage = await getUsage();
      expect(seen).toEqual([{ path: "/v7/user/quota", auth: `Bearer ${CREDITS_KEY}` }]);
      expect(usage).toEqual({
        runningSessionLimit: 4,
        runningSessionsUsed: 1,
        runningSessionsRemaining: 3,
        cycleSessionLimit: null,
        cycleSessionsUsed: 7,
        cycleSessionsRemaining: null,
        cycleStart: "2026-11-01",
        residentialCycleMbLimit: null,
        residentialBytesUsedCycle: 0,
        hasPlan: true,
        pools: [],
        meter: "credits",
        credits: {
          creditsTotal: 100,
          creditsUsed: 7,
          creditsAvailable: 93,
          concurrencyTotal: 4,
          concurrencyUsed: 1,
          concurrencyAvailable: 3,
          cycleStart: "2026-11-01",
          cycleEnd: "2026-12-01",
        },
      });
    } finally {
      stub.closeAllConnections();
      await new Promise((resolve) => stub.close(resolve));
    }
  });
});

describe("getSessions", () => {
  beforeEach(() => {
    emu.control.reset();
  });

  it("lists every session of the account, newest first, with masked ids, browser, state, created and location fields", async () => {
    const plain = await api("/v8/vm/create", { method: "POST", body: { browser: "chrome" } });
    emu.control.settings({ locationCapacity: { de: 0 } });
    const located = await api("/v8/vm/create", { method: "POST", body: { browser: "firefox", country: "de" } });
    const otherKey = "rb_test_sdk_other_account";
    emu.control.addAccount({ apiKey: otherKey });
    await api("/v8/vm/create", { method: "POST", body: { browser: "edge" }, key: otherKey });
    const { sessions } = await getSessions();
    expect(sessions).toHaveLength(2);
    const [newest, oldest] = sessions;
    expect(newest).toMatchObject({ status: expect.stringMatching(/^(starting|running)$/), browserName: "Mozilla Firefox", locationApplied: false, locationReason: "unavailable" });
    expect(oldest).toMatchObject({ status: expect.stringMatching(/^(starting|running)$/), browserName: "Google Chrome" });
    expect(oldest).not.toHaveProperty("locationApplied");
    // Masked: not the id the end operation needs, though its visible characters agree with it.
    expect(newest!.maskedId).not.toBe(located.vmId);
    expect(oldest!.maskedId).not.toBe(plain.vmId);
    expect(isMasked(oldest!.maskedId) && maskedIdMatches(oldest!.maskedId, plain.vmId)).toBe(true);
    expect(maskedIdMatches(oldest!.maskedId, located.vmId)).toBe(false);
    expect(Date.parse(newest!.created)).toBeGreaterThanOrEqual(Date.parse(oldest!.created));
  });

  it("filters by state and by age", async () => {
    const ended = await api("/v8/vm/create", { method: "POST", body: { browser: "chrome" } });
    await api("/v8/vm/remove", { method: "POST", body: { id: ended.vmId } });
    const old = await api("/v8/vm/create", { method: "POST", body: { browser: "firefox" } });
    emu.control.setCreated(old.vmId, new Date(Date.now() - 3 * 3600_000).toISOString());
    const fresh = await api("/v8/vm/create", { method: "POST", body: { browser: "edge" } });
    const names = (r: { sessions: Array<{ browserName: string }> }) => r.sessions.map((s) => s.browserName).sort();
    expect(names(await getSessions({ states: ["starting", "running"] }))).toEqual(["Microsoft Edge", "Mozilla Firefox"]);
    expect(names(await getSessions({ minAgeMinutes: 60 }))).toEqual(["Mozilla Firefox"]);
    expect(names(await getSessions({ maxAgeMinutes: 60 }))).toEqual(["Google Chrome", "Microsoft Edge"]);
    expect(names(await getSessions({ states: ["stopping", "deleted"], maxAgeMinutes: 60 }))).toEqual(["Google Chrome"]);
    expect(fresh.vmId).toBeTruthy();
  });

  it("refuses an unknown state or filter, naming it and the states there are", async () => {
    const err = await rejection(getSessions({ states: ["runing" as never] }));
    expect(err.message).toMatch(/getSessions: invalid arguments: states\.0: .*\(states: starting, running, error, stopping, suspended, deleted\)/);
    const other = await rejection(getSessions({ since: "yesterday" } as never));
    expect(other.message).toMatch(/since/);
  });

  it("getSessionsOutput resolves to the same value and accepts Input filters", async () => {
    await api("/v8/vm/create", { method: "POST", body: { browser: "brave" } });
    const out = await value(getSessionsOutput(pulumi.output({ states: ["starting" as const, "running" as const] })));
    expect(out.sessions.map((s) => s.browserName)).toEqual(["Brave"]);
  });
});
