import { afterEach, describe, expect, it, vi } from "vitest";
import { createRandom } from "../../emulator/random";
import { EmulatorState } from "../../emulator/state";
import type { NewSession } from "../../emulator/sessions";

/**
 * Residential data accrues on a timer and on every quota read, each time for the time since the last one,
 * and stops at the pool's allowance. On the clock below (750 bytes a second, read every 144 ms) the sum of
 * fractions once rounded up past the allowance: 1 MiB + 1 byte reported used, a CI run failed on it.
 */
const MIB = 1024 * 1024;

function residentialSession(state: EmulatorState, vmId: string): NewSession {
  return {
    vmId,
    accountId: state.defaultAccount.id,
    poolIndex: 0,
    apiVersion: "v8",
    browser: "chrome",
    browserName: "Chrome",
    url: null,
    language: "en",
    layout: "us",
    country: "us-dal",
    egress: "residential",
    shareLanguage: "en",
    callbackUrl: null,
    linkId: `link-${vmId}`,
    idempotencyKey: null,
    created: Date.now(),
    locationRequested: true,
    locationApplied: true,
    locationReason: null,
    exitCode: null,
  };
}

/** An emulator's state on a fake clock, whose default account has 2 MiB split over two pools (1 MiB each). */
function stateOnFakeClock(residentialBytesPerSecond: number): EmulatorState {
  vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"], now: Date.parse("2026-11-02T00:00:00Z") });
  return new EmulatorState({ prepMs: 0, prepJitterMs: 0, stopMs: 0, residentialBytesPerSecond, rateLimit: 0, maxBodyBytes: 1_000_000 }, { apiKey: "rb_accrual", residentialMb: 2 }, createRandom(1));
}

afterEach(() => vi.useRealTimers());

describe("residential data of the emulator", () => {
  it("is counted in whole bytes and never passes the pool's allowance, whatever the clock's steps", () => {
    const state = stateOnFakeClock(750);
    state.sessions.restore(residentialSession(state, "vm-000000000001"), "running");
    let used = 0;
    for (let step = 0; step < 20_000 && used < MIB; step++) {
      vi.setSystemTime(Date.now() + 144);
      used = state.poolMeters(state.defaultAccount)[0]!.residential_bytes_used_cycle;
      state.sessions.accrue();
    }
    for (let step = 0; step < 20; step++) {
      vi.setSystemTime(Date.now() + 144);
      state.sessions.accrue();
      const meter = state.poolMeters(state.defaultAccount)[0]!;
      expect(meter.residential_bytes_used_cycle).toBe(MIB);
      expect(state.sessions.get("vm-000000000001")!.residentialBytes).toBe(MIB);
    }
  });

  it("starts for a session put back as running from the moment it is put back, not from the last accrual", () => {
    const state = stateOnFakeClock(1_000);
    state.sessions.restore(residentialSession(state, "vm-000000000002"), "running");
    vi.setSystemTime(Date.now() + 2_000);
    state.sessions.accrue();
    expect(state.sessions.get("vm-000000000002")!.residentialBytes).toBe(2_000);
  });
});
