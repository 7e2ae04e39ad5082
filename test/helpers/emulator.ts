/**
 * Shared helpers of the client and provider tests: one real emulator per test on port 0 with a short
 * preparation time, clients whose backoff never sleeps for real, and providers that poll fast.
 */
import { afterEach, beforeEach } from "vitest";
import { type Emulator, type EmulatorOptions, type Operation, type RequestLogEntry, startEmulator } from "../../emulator";
import { type ClientOptions, RemoteBrowserClient, RequestBudget } from "../../client";
import { type ProviderDeps, SessionProvider } from "../../dynamic/session";
export { eventually } from "./eventually";
import type { PollSchedule, Clock, Diagnostics } from "../../core/context";
/* eslint-disable @typescript-eslint/no-explicit-any -- a thrown error's own fields (code, status, cause...), read by the tests that expect them */

/** Preparation time of sessions in these tests: long enough to be seen `starting`, short enough not to wait. */
export const TEST_PREP_MS = 40;

/** A poll schedule for tests: 5 ms at first, never more than 20 ms between polls. */
export const FAST_POLL: PollSchedule = Object.freeze({ minIntervalMs: 5, growth: 0.2, maxIntervalMs: 20 });

/** The value the engine passes for an input that is not known yet. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A sleep that records each requested delay and resolves at once. */
export function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void>; now: () => number } {
  const delays: number[] = [];
  let slept = 0;
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
      slept += ms;
    },
    // The wall clock moved on by every wait that was not slept, so that time budgets still run out.
    now: () => Date.now() + slept,
  };
}

/**
 * A request budget whose pacing takes no real time: its clock moves on by each wait it sets, and the
 * wait ends at the next turn of the event loop. One per test, shared by the test's clients, as the
 * process's budget is shared by a provider's.
 */
export function instantBudget(): RequestBudget {
  let t = 0;
  return new RequestBudget({
    now: () => t,
    after(ms, fn) {
      t += ms;
      const timer = setImmediate(fn);
      return () => clearImmediate(timer);
    },
  });
}

/** A clock that only moves when something sleeps on it: waits of any length take no real time. */
export function virtualClock(start = Date.now()): Clock & { slept: number[] } {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    slept,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    random: () => 0.5,
  };
}

export interface ProviderSetup {
  /** Key to configure; null configures none. @default the emulator's default key */
  apiKey?: string | null;
  /** @default the emulator's v8 base URL (the v7 one when apiVersion is v7) */
  baseUrl?: string;
  apiVersion?: "v8" | "v7";
  /** Further settings of the `remote-browser` namespace, e.g. `idempotencySecret`. */
  settings?: Record<string, string>;
  /** Overrides of the provider's injected dependencies. */
  deps?: Partial<ProviderDeps>;
  /** Options of the clients the provider builds (timeouts, retry policy). */
  client?: Partial<ClientOptions>;
  /** The stack's identity (the backend's digest under the engine). @default none: the resource's seed alone */
  stackIdentity?: string;
}

export interface TestEnv {
  emu: Emulator;
  /** Delays the clients' backoff asked for (none of them is slept). */
  backoff: number[];
  /** Warnings the provider emitted during the test. */
  warnings: string[];
  /** The same warnings, each with the URN of the resource it was put on (undefined: the stack). */
  warnedOn: Array<{ urn: string | undefined; message: string }>;
  /** Where the providers of the test report: it records the warnings above. */
  diagnostics: Diagnostics;
  /** A client of the emulator's default account; closed after the test. */
  client(opts?: Partial<ClientOptions>): RemoteBrowserClient;
  /** A configured SessionProvider whose clients talk to the emulator without sleeping for backoff. */
  provider(setup?: ProviderSetup): SessionProvider;
  /** The emulator's request log, optionally only one operation. */
  requests(operation?: Operation): RequestLogEntry[];
}

/**
 * Starts a fresh emulator before each test of the calling file and stops it after, with every
 * client closed and the warning sink restored. Returns an object filled in before each test.
 */
export function useEmulator(opts: EmulatorOptions = {}): TestEnv {
  const env = {} as TestEnv;
  let clients: RemoteBrowserClient[] = [];

  beforeEach(async () => {
    const emu = await startEmulator({ prepMs: TEST_PREP_MS, prepJitterMs: 0, ...opts });
    const backoff = recordingSleep();
    const budget = instantBudget();
    const warnings: string[] = [];
    // The provider's warnings, each with the resource it was put on (status lines are dropped).
    const warnedOn: Array<{ urn: string | undefined; message: string }> = [];
    const diagnostics: Diagnostics = {
      warning: async (urn, message) => {
        warnings.push(message);
        warnedOn.push({ urn, message });
      },
      status: async () => undefined,
    };
    clients = [];
    const client = (o: Partial<ClientOptions> = {}) => {
      const c = new RemoteBrowserClient({ baseUrl: emu.apiBaseUrl, apiKey: emu.apiKey, sleep: backoff.sleep, now: backoff.now, budget, ...o });
      clients.push(c);
      return c;
    };
    Object.assign(env, {
      emu,
      backoff: backoff.delays,
      warnings,
      warnedOn,
      diagnostics,
      client,
      provider(setup: ProviderSetup = {}) {
        const apiVersion = setup.apiVersion ?? "v8";
        const settings: Record<string, string | undefined> = {
          apiKey: setup.apiKey === null ? undefined : (setup.apiKey ?? emu.apiKey),
          baseUrl: setup.baseUrl ?? (apiVersion === "v7" ? emu.v7BaseUrl : emu.apiBaseUrl),
          apiVersion,
          ...setup.settings,
        };
        const provider = new SessionProvider(
          {
            clientFor: (cfg) => client({ ...setup.client, baseUrl: cfg.baseUrl, apiKey: cfg.apiKey }),
            schedule: FAST_POLL,
            engineAlive: () => true,
            diagnostics,
            ...setup.deps,
          },
          { stackIdentity: () => setup.stackIdentity },
        );
        // An empty environment: the test process's own variables must not leak into the settings.
        provider.configure((key) => settings[key], {});
        return provider;
      },
      requests(operation?: Operation) {
        const log = emu.control.requests();
        return operation ? log.filter((r) => r.operation === operation) : log;
      },
    } satisfies TestEnv);
  });

  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await env.emu?.close();
  });

  return env;
}

/** What an error thrown by `fn` is (fails the test when nothing is thrown). */
export async function thrown(fn: () => unknown): Promise<Error & Record<string, any>> {
  try {
    await fn();
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error("expected an error, but the call succeeded");
}
