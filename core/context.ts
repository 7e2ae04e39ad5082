import { isRemoteBrowserError, type AccountAnswer, type ImagesAnswer, RemoteBrowserClient, type V7AccountAnswer, type ApiVersion } from "../client";
import { type ProviderConfig, loadConfig } from "./config";
import { KeyRefusedError } from "../client/errors";
import { identityOf, ownerFingerprint, type OwnerIdentity } from "./state";

/** What the operations are given instead of globals: replaced in tests. */
export interface ProviderDeps {
  clientFor: (cfg: ProviderConfig) => RemoteBrowserClient;
  clock: Clock;
  /** @default DEFAULT_POLL_SCHEDULE */
  schedule?: PollSchedule;
  /**
   * Whether the engine that started this process is still there: each front hands in its watch
   * (engine-conventions/liveness.ts). @default always there
   */
  engineAlive: () => boolean;
  /** Where the operations' warnings and status lines go. @default STDERR_DIAGNOSTICS */
  diagnostics: Diagnostics;
}

/**
 * One provider process's settings and what it has learned once: its client, the service's catalog, the
 * key's account. The API version's behaviour is chosen here, once, when the settings are read.
 */
export class ProviderContext {
  readonly clock: Clock;
  readonly schedule?: PollSchedule;
  readonly engineAlive: () => boolean;
  readonly diagnostics: Diagnostics;
  private wasCancelled = false;
  private readonly clientFor: (cfg: ProviderConfig) => RemoteBrowserClient;
  private config?: ProviderConfig;
  private configured?: ApiVersionBehaviour;
  private client?: RemoteBrowserClient;
  private catalog?: Promise<ImagesAnswer>;
  private accountAnswer?: Promise<AccountAnswer | V7AccountAnswer>;

  constructor(deps: Partial<ProviderDeps> = {}) {
    this.clientFor = deps.clientFor ?? clientForConfig;
    this.clock = deps.clock ?? systemClock;
    this.schedule = deps.schedule;
    this.engineAlive = deps.engineAlive ?? (() => true);
    this.diagnostics = deps.diagnostics ?? STDERR_DIAGNOSTICS;
  }

  /** The reports of an operation on the resource `urn` (without one, warnings go to the stack). */
  reporter(urn: string | undefined): Reporter {
    return reporterOn(this.diagnostics, urn);
  }

  /**
   * The engine cancels an update (its Cancel call, on the user's Ctrl-C) and then waits for the operations
   * in flight: a create still waiting stops at its next look and ends its session, and a capacity wait
   * starts none. Unlike an engine that went away, this engine is still there to record the failure, so
   * nothing is left for the next update to adopt.
   */
  cancel(): void {
    this.wasCancelled = true;
  }

  readonly cancelled = (): boolean => this.wasCancelled;

  /** Reads the provider's settings; `get` takes a key of the `remote-browser` namespace without prefix. */
  configure(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): void {
    this.config = loadConfig(get, env);
    this.configured = behaviourOf(this.config.apiVersion);
    this.client = undefined;
    this.catalog = undefined;
    this.accountAnswer = undefined;
  }

  cfg(): ProviderConfig {
    // Engines older than the dynamic provider's `configure` leave the environment as the only source.
    if (!this.config) this.configure(() => undefined);
    return this.config!;
  }

  /** The configured API version's behaviour (new sessions use it). */
  version(): ApiVersionBehaviour {
    this.cfg();
    return this.configured!;
  }

  /** The behaviour of the version a recorded session was started with (refresh and destroy use it). */
  versionOf(props: Record<string, unknown>): ApiVersionBehaviour {
    return props.apiVersion === "v7" || props.apiVersion === "v8" ? behaviourOf(props.apiVersion) : this.version();
  }

  api(): RemoteBrowserClient {
    if (!this.client) this.client = this.clientFor(this.cfg());
    return this.client;
  }

  /** The key's account, read once per process; a refused key is named as such. */
  async account(): Promise<AccountAnswer | V7AccountAnswer> {
    if (!this.accountAnswer) this.accountAnswer = this.version().account(this.api());
    try {
      return await this.accountAnswer;
    } catch (err) {
      this.accountAnswer = undefined;
      if (isRemoteBrowserError(err) && err.code === "denied") {
        throw new KeyRefusedError(`the service refused the API key (remote-browser:apiKey, an explicit provider's apiKey, or REMOTE_BROWSER_API_KEY) (denied): ${err.serverMessage ?? err.message}`, {
          cause: err,
        });
      }
      throw err;
    }
  }

  /** A new fingerprint of the configured key's account and service, to record with a session (see state.ts). */
  async owner(): Promise<string> {
    return ownerFingerprint(await this.identity());
  }

  /** What identifies the configured key's account and service: what a recorded fingerprint is checked against. */
  async identity(): Promise<OwnerIdentity> {
    return identityOf(await this.account(), this.cfg().baseUrl);
  }

  /** Browser images, locations and the residential descriptor, read once per process. */
  images(): Promise<ImagesAnswer> {
    if (!this.catalog) {
      this.catalog = this.api()
        .images()
        .catch((err) => {
          this.catalog = undefined;
          throw err;
        });
    }
    return this.catalog;
  }
}

/**
 * Time and chance, as the provider sees them: one object, so that a test can replace all three at once
 * (waits of minutes then take no real time, jitter is repeatable).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** A number in [0, 1): jitter of the capacity wait's pauses. */
  random(): number;
}

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
});

/**
 * What every wait of the provider (for capacity, for a session to run) looks at between its steps: the
 * time, and whether to stop -- the engine gone, the update cancelled -- without touching anything more.
 * A ProviderContext is one; a test hands in a virtual clock.
 */
export interface Waiting {
  /** @default systemClock, part by part */
  readonly clock?: Partial<Clock>;
  /** False once the engine is gone: the wait stops. @default always there */
  readonly engineAlive?: () => boolean;
  /** True once the update is cancelled: the wait stops. @default never */
  cancelled?(): boolean;
}

/** Why a wait must stop now, without touching anything more: the engine gone, or the update cancelled. */
export function stopOf(w: Waiting | undefined): "engine-gone" | "cancelled" | undefined {
  if (w?.engineAlive && !w.engineAlive()) return "engine-gone";
  if (w?.cancelled?.()) return "cancelled";
  return undefined;
}

/** `w`'s clock, the system's for what it leaves out. */
export function clockOf(w: Waiting | undefined): Clock {
  const c = w?.clock;
  return { now: c?.now ?? systemClock.now, sleep: c?.sleep ?? systemClock.sleep, random: c?.random ?? systemClock.random };
}

/**
 * What an operation tells the user while it runs. The core says what to tell; each front says how it
 * reaches the user (the engine's Log call, see engine-conventions/diagnostics.ts) and hands that in
 * through the context, so that no operation reaches for a channel of its own.
 */

/** Where reports go, by the resource they belong to (`undefined`: the stack as a whole). */
export interface Diagnostics {
  /** A warning the update keeps in its diagnostics. Never rejects. */
  warning(urn: string | undefined, message: string): Promise<void>;
  /** A status line on the resource's row, replaced by the next one and gone when its step ends. Never rejects. */
  status(urn: string | undefined, message: string): Promise<void>;
}

/** The reports of one operation, on its own resource. */
export interface Reporter {
  warning(message: string): Promise<void>;
  status(message: string): Promise<void>;
}

/** Outside any front (a test, a script): warnings on standard error, status lines dropped. */
export const STDERR_DIAGNOSTICS: Diagnostics = {
  warning: async (_urn, message) => void process.stderr.write(`warning: ${message}\n`),
  status: async () => undefined,
};

/** `diagnostics` bound to the resource `urn`. */
export function reporterOn(diagnostics: Diagnostics, urn: string | undefined): Reporter {
  return {
    warning: (message) => diagnostics.warning(urn, message),
    status: (message) => diagnostics.status(urn, message),
  };
}

/**
 * What differs between the API versions beyond the operations, which keep each version's way beside the
 * other's in their operation (controller.ts). The configured version
 * decides how new sessions start and how check reads the account; a recorded session's own version
 * decides how refresh and destroy treat it. Version 7 has no status, end or image operation, no `egress`
 * and no `idempotencyKey`: its sessions are started and not waited for, refresh keeps what was recorded,
 * and destroy can only say that it cannot end them.
 */
export interface ApiVersionBehaviour {
  readonly name: ApiVersion;
  /** Whether check can consult the catalog (`GET /image`) and the residential allowance. */
  readonly hasCatalog: boolean;
  account(client: RemoteBrowserClient): Promise<AccountAnswer | V7AccountAnswer>;
}

const BEHAVIOURS: Record<ApiVersion, ApiVersionBehaviour> = {
  v8: { name: "v8", hasCatalog: true, account: (client) => client.account() },
  v7: { name: "v7", hasCatalog: false, account: (client) => client.v7.account() },
};

export function behaviourOf(version: ApiVersion): ApiVersionBehaviour {
  return BEHAVIOURS[version];
}

/**
 * The client for these settings: the one place a provider or data source builds one. Apart from the
 * settings (core/config.ts) so that what only reads them -- a program declaring sessions, the runner --
 * does not load the client (undici, zod and every schema), a third of their start.
 */
export function clientForConfig(cfg: ProviderConfig): RemoteBrowserClient {
  return new RemoteBrowserClient({ baseUrl: cfg.baseUrl, apiKey: cfg.apiKey, attemptTimeoutMs: cfg.requestTimeoutSeconds * 1000 });
}

/**
 * When to look at a starting session again. Noticing late costs the user time in proportion to the
 * preparation, and every look costs the service a status call: look once after `firstDelayMs`, then every
 * `minIntervalMs`, then every `growth` of the time waited so far, never less often than every
 * `maxIntervalMs`. A session is then noticed on average about half an interval late, about `growth / 2`
 * of its preparation time once the intervals grow; the early first look catches preparations shorter
 * than one minimum interval without paying for short intervals throughout.
 */
export interface PollSchedule {
  /** @default minIntervalMs */
  firstDelayMs?: number;
  minIntervalMs: number;
  growth: number;
  maxIntervalMs: number;
}
