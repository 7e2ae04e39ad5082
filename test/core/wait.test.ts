import { describe, expect, it } from "vitest";
import type { PollSchedule } from "../../core/context";
import { DEFAULT_POLL_SCHEDULE, nextPollDelay, waitForRunning } from "../../core/launch";
import { modelPoint, modelSession } from "../../bench/model";
import { CALLS_PER_SECOND_GOAL, overheadGoalMs, samplePrepTimes } from "../../bench/overhead";

/** The times of the first `n` looks of a wait that costs nothing but its pauses. */
function lookTimes(s: PollSchedule, n: number): number[] {
  const times: number[] = [];
  let t = 0;
  while (times.length < n) {
    t += nextPollDelay(t, s);
    times.push(t);
  }
  return times;
}

describe("the poll schedule", () => {
  it("looks first after firstDelayMs, then every minIntervalMs, then every growth of the time waited, at most maxIntervalMs", () => {
    const s: PollSchedule = { firstDelayMs: 100, minIntervalMs: 400, growth: 0.5, maxIntervalMs: 1_000 };
    expect(lookTimes(s, 7)).toEqual([100, 500, 900, 1350, 2025, 3025, 4025]);
  });

  it("looks first after minIntervalMs when no firstDelayMs is given", () => {
    expect(lookTimes({ minIntervalMs: 300, growth: 0.2, maxIntervalMs: 5_000 }, 3)).toEqual([300, 600, 900]);
  });

  it("counts the first delay from the start of the wait, also when it looked at once", () => {
    expect(nextPollDelay(40, DEFAULT_POLL_SCHEDULE)).toBe(DEFAULT_POLL_SCHEDULE.firstDelayMs! - 40);
    expect(nextPollDelay(DEFAULT_POLL_SCHEDULE.firstDelayMs!, DEFAULT_POLL_SCHEDULE)).toBe(DEFAULT_POLL_SCHEDULE.minIntervalMs);
    expect(nextPollDelay(600_000, DEFAULT_POLL_SCHEDULE)).toBe(DEFAULT_POLL_SCHEDULE.maxIntervalMs);
  });

  it("the default looks at 225 ms, then every 450 ms, then every sixth of the time waited", () => {
    const times = lookTimes(DEFAULT_POLL_SCHEDULE, 12);
    expect(times.slice(0, 7)).toEqual([225, 675, 1125, 1575, 2025, 2475, 2925]);
    expect(times[7] - times[6]).toBe(Math.round(2925 * 0.1667));
    expect(times[11] - times[10]).toBe(Math.round(times[10] * 0.1667));
  });
});

describe("the default schedule, computed at the benchmark's preparation times", () => {
  // The overhead benchmark's points: 25 sessions per preparation time, spread evenly over ±10 %.
  const points = [500, 2_000, 5_000, 20_000].map((prep) => ({
    prep,
    model: modelPoint(DEFAULT_POLL_SCHEDULE, samplePrepTimes(prep, 25, 0.1)),
  }));

  it("keeps the median overhead within 0.9 × max(250 ms, 10 % of the preparation time) at each", () => {
    for (const { prep, model } of points) {
      expect(model.medianOverheadMs, `at ${prep} ms`).toBeLessThanOrEqual(overheadGoalMs(prep));
    }
    expect(overheadGoalMs(500)).toBe(225);
    expect(overheadGoalMs(20_000)).toBe(1_800);
  });

  it("makes at most 1.3 status calls per second of waiting, all sessions together", () => {
    const calls = points.reduce((a, p) => a + p.model.statusCalls, 0);
    const waited = points.reduce((a, p) => a + p.model.waitMs, 0) / 1000;
    expect(CALLS_PER_SECOND_GOAL).toBe(1.3);
    expect(calls / waited).toBeLessThanOrEqual(CALLS_PER_SECOND_GOAL);
  });

  it("notices a session at the first look that reaches the service after its preparation", () => {
    const costs = { createMs: 0, pollMs: 0, timerMs: 0 };
    expect(modelSession(DEFAULT_POLL_SCHEDULE, 200, costs)).toEqual({ prepMs: 200, overheadMs: 25, statusCalls: 1, waitMs: 225 });
    expect(modelSession(DEFAULT_POLL_SCHEDULE, 226, costs)).toEqual({ prepMs: 226, overheadMs: 449, statusCalls: 2, waitMs: 675 });
  });
});

describe("waitForRunning and a state the spec does not name", () => {
  it("looks again at a session in a state the spec does not name, instead of taking it for an end", async () => {
    const states = ["provisioning", "queued", "running"];
    let t = 0;
    const outcome = await waitForRunning({
      client: { session: async (vmId) => ({ id: vmId, status: states.shift()!, name: "Google Chrome", created: "2026-11-26T00:00:00.000Z" }) },
      vmId: "vm-aaaaaaaa0001",
      timeoutMs: 60_000,
      waiting: { clock: { sleep: async (ms) => void (t += ms), now: () => t } },
    });
    expect(outcome).toMatchObject({ kind: "running", polls: 3 });
  });
});
