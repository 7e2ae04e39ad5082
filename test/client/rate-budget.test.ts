import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HeldTurn, MIN_RATE, RemoteBrowserClient, RequestBudget, sharedBudget } from "../../client";
import type { BudgetClock } from "../../client";

/** A clock that moves only when told; timers fire as it passes them. */
function fakeClock(): BudgetClock & { advance(ms: number): Promise<void>; t: number } {
  const timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  const clock = {
    t: 0,
    now: () => clock.t,
    after(ms: number, fn: () => void) {
      const timer = { at: clock.t + ms, fn, live: true };
      timers.push(timer);
      return () => {
        timer.live = false;
      };
    },
    async advance(ms: number) {
      const end = clock.t + ms;
      for (;;) {
        const next = timers.filter((x) => x.live && x.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        next.live = false;
        clock.t = next.at;
        next.fn();
        await flush();
      }
      clock.t = end;
      await flush();
    },
  };
  return clock;
}

const flush = () => new Promise<void>((r) => setImmediate(r));

/** Acquires `n` turns and records the fake time at which each is granted, with its label. */
function grants(budget: RequestBudget, clock: { now(): number }) {
  const got: Array<{ label: string; at: number }> = [];
  const ask = (label: string, priority: "first" | "poll" = "first") =>
    budget.acquire(priority).then(() => {
      got.push({ label, at: clock.now() });
    });
  return { got, ask };
}

describe("RequestBudget", () => {
  it("does not pace anything before the service has refused a call", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    const { got, ask } = grants(budget, clock);
    for (let i = 0; i < 100; i++) void ask(`c${i}`);
    await flush();
    expect(got).toHaveLength(100);
    expect(budget.state()).toMatchObject({ paced: false, rate: Infinity, waiting: 0 });
  });

  it("after a refusal, paces at 0.7 of the rate it was sending at, with nothing sent before the first token", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    const { got, ask } = grants(budget, clock);
    for (let i = 0; i < 10; i++) void ask(`sent${i}`);
    await flush();
    budget.refused(); // 10 sent within the last second
    expect(budget.state()).toMatchObject({ paced: true, rate: 7, refusals: 1 });
    for (let i = 0; i < 7; i++) void ask(`paced${i}`);
    await flush();
    expect(got).toHaveLength(10);
    await clock.advance(1_010);
    // 7 a second, one every 1/7 s (rounded up to the millisecond): the 7th at the end of the second.
    expect(got.slice(10).map((g) => g.label)).toEqual(["paced0", "paced1", "paced2", "paced3", "paced4", "paced5", "paced6"]);
    const gaps = got.slice(11).map((g, i) => g.at - got[10 + i].at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(142);
  });

  it("lowers the rate again at each further refusal, never below its floor", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    for (let i = 0; i < 20; i++) await budget.acquire("first");
    budget.refused();
    const first = budget.state().rate;
    budget.refused();
    expect(budget.state().rate).toBeLessThan(first);
    for (let i = 0; i < 30; i++) budget.refused();
    expect(budget.state().rate).toBe(MIN_RATE);
  });

  it("lowers the rate once for a burst refused at once: refusals of calls sent before the last lowering say nothing new", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    const sent: number[] = [];
    for (let i = 0; i < 20; i++) sent.push(await budget.acquire("first"));
    await clock.advance(10);
    for (const at of sent) budget.refused(at);
    expect(budget.state()).toMatchObject({ rate: 14, refusals: 20 });
    // A call sent after the lowering and refused too lowers it again.
    await clock.advance(1_000);
    const later = await budget.acquire("first");
    budget.refused(later);
    expect(budget.state().rate).toBeLessThan(14);
  });

  it("holds back every call on the key for a Retry-After, not only the refused one, then paces as before", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    const { got, ask } = grants(budget, clock);
    for (let i = 0; i < 10; i++) void ask(`sent${i}`);
    await flush();
    budget.refused(clock.now(), 3_000);
    expect(budget.state()).toMatchObject({ rate: 7, heldMs: 3_000 });
    // Two seconds in, the lowered rate has tokens again, and nothing waits: the hold alone keeps calls back.
    await clock.advance(2_000);
    for (let i = 0; i < 3; i++) void ask(`other${i}`, i === 0 ? "first" : "poll");
    await clock.advance(999);
    expect(got).toHaveLength(10);
    await clock.advance(1_000);
    expect(got.slice(10).map((g) => g.label)).toEqual(["other0", "other1", "other2"]);
    expect(got[10].at).toBeGreaterThanOrEqual(3_000);
    expect(budget.state().heldMs).toBe(0);
  });

  it("lowers the rate once for a burst of calls whose turn their caller took (the status board's), and keeps their Retry-After", async () => {
    // Every reading of this clock is later than the one before: a refusal is never at its call's send time.
    let t = 0;
    const budget = new RequestBudget({
      now: () => ++t,
      after: (_ms, fn) => {
        const x = setImmediate(fn);
        return () => clearImmediate(x);
      },
    });
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get("https://api.example.invalid")
      .intercept({ path: /^\/v8\/vm\/data/, method: "GET" })
      .reply(429, { status: "insecure", reason: "rate_limited", message: "slow down" }, { headers: { "retry-after": "3", "content-type": "application/json" } })
      .times(3);
    const client = new RemoteBrowserClient({ baseUrl: "https://api.example.invalid/v8", apiKey: "rb_budget_burst", dispatcher: agent, budget, retry: { maxElapsedMs: 1_000 } });
    try {
      for (let i = 0; i < 10; i++) await budget.acquire("first");
      const call = { operation: "list sessions", method: "GET", path: "vm/data", auth: true, idempotent: true, schema: z.unknown() } as const;
      const failures = await Promise.all([0, 1, 2].map(() => client.transport.send({ ...call, turn: new HeldTurn() }).catch((e: unknown) => e)));
      expect(failures).toMatchObject([{ rateLimited: true }, { rateLimited: true }, { rateLimited: true }]);
      // 10 sent in the last second, refused: 7 a second, once -- not 7, 4.9, 3.43.
      expect(budget.state()).toMatchObject({ refusals: 3, rate: 7 });
      expect(budget.state().heldMs).toBeGreaterThan(2_900);
    } finally {
      await client.close();
      await agent.close();
    }
  });

  it("raises the rate as calls succeed: back at the refused rate after the cubic window, beyond it later", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    for (let i = 0; i < 10; i++) await budget.acquire("first");
    budget.refused(); // 10 sent in the last second
    const refusedAt = budget.state().rate;
    expect(refusedAt).toBe(7);
    // Steady demand from now on: something always waiting, each call answered at once.
    let running = true;
    const demand = (async () => {
      while (running) {
        await budget.acquire("first");
        budget.succeeded();
      }
    })();
    const lastMax = refusedAt / 0.7;
    await clock.advance(Math.cbrt((lastMax * 0.3) / 0.4) * 1000 + 100);
    expect(budget.state().rate).toBeGreaterThanOrEqual(lastMax * 0.95);
    await clock.advance(3_000);
    expect(budget.state().rate).toBeGreaterThan(lastMax);
    running = false;
    budget.refused();
    await clock.advance(60_000);
    await demand;
  });

  it("does not grow past twice the rate really sent (an idle budget stays near what it last sent)", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    for (let i = 0; i < 4; i++) await budget.acquire("first");
    budget.refused();
    await clock.advance(60_000);
    budget.succeeded(); // nothing sent in the last second
    expect(budget.state().rate).toBe(2 * MIN_RATE);
  });

  it("lets creates and removes go before status polls when the budget is short, in the order they were asked", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    for (let i = 0; i < 2; i++) await budget.acquire("first");
    budget.refused(); // paced at the floor, no token left
    const { got, ask } = grants(budget, clock);
    void ask("poll-a", "poll");
    void ask("poll-b", "poll");
    void ask("create-a", "first");
    void ask("poll-c", "poll");
    void ask("remove-a", "first");
    await clock.advance(20_000);
    expect(got.map((g) => g.label)).toEqual(["create-a", "remove-a", "poll-a", "poll-b", "poll-c"]);
  });

  it("puts a retried call ahead of calls that started after it (its ticket keeps its place)", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    const early = budget.ticket();
    for (let i = 0; i < 2; i++) await budget.acquire("first");
    budget.refused();
    const order: string[] = [];
    void budget.acquire("first").then(() => order.push("later call"));
    void budget.acquire("first", undefined, early).then(() => order.push("retry of the early call"));
    await clock.advance(20_000);
    expect(order).toEqual(["retry of the early call", "later call"]);
  });

  it("gives a waiting call up when its signal aborts, and lets the next one have the turn", async () => {
    const clock = fakeClock();
    const budget = new RequestBudget(clock);
    for (let i = 0; i < 2; i++) await budget.acquire("first");
    budget.refused();
    const abort = new AbortController();
    const given = budget.acquire("first", abort.signal).catch((e) => `aborted: ${e}`);
    const { got, ask } = grants(budget, clock);
    void ask("next");
    abort.abort("deadline");
    expect(await given).toBe("aborted: deadline");
    expect(budget.state().waiting).toBe(1);
    await clock.advance(20_000);
    expect(got.map((g) => g.label)).toEqual(["next"]);
  });
});

describe("sharedBudget", () => {
  it("is one budget per service and key in the process, whoever asks", () => {
    expect(sharedBudget("https://a.example", "k1")).toBe(sharedBudget("https://a.example", "k1"));
    expect(sharedBudget("https://a.example", "k1")).not.toBe(sharedBudget("https://a.example", "k2"));
    expect(sharedBudget("https://a.example", "k1")).not.toBe(sharedBudget("https://b.example", "k1"));
  });

  it("is the budget of every client of one service and key, of API versions 8 and 7 alike", async () => {
    const a = new RemoteBrowserClient({ baseUrl: "http://127.0.0.1:9/v8", apiKey: "rb_budget_test" });
    const b = new RemoteBrowserClient({ baseUrl: "http://127.0.0.1:9", apiKey: "rb_budget_test" });
    const other = new RemoteBrowserClient({ baseUrl: "http://127.0.0.1:9", apiKey: "rb_budget_other" });
    try {
      expect(b.transport.budget).toBe(a.transport.budget);
      expect(a.v7.transport.budget).toBe(a.transport.budget);
      expect(other.transport.budget).not.toBe(a.transport.budget);
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });
});
