import { isRemoteBrowserError } from "../client";
import type { AccountAnswer, ImagesAnswer, RemoteBrowserClient, V7AccountAnswer } from "../client";
import type { Clock } from "./clock";
import { systemClock } from "./clock";
import { ProviderConfig, loadConfig } from "./config";
import { clientForConfig } from "./configuredClient";
import { KeyRefusedError } from "./errors";
import { identityOf, ownerFingerprint } from "./owner";
import type { OwnerIdentity } from "./owner";
import { STDERR_DIAGNOSTICS, reporterOn } from "./report";
import type { Diagnostics, Reporter } from "./report";
import type { ApiVersionBehaviour } from "./versions";
import { behaviourOf } from "./versions";
import type { PollSchedule } from "./wait";

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

  /**
   * The engine showed `vmId` as a resource's recorded session (a diff or a refresh of it). A create in this
   * process that its idempotency key answers with that session is creating its replacement, never a retry
   * of its own: see create.ts.
   */
  recordedSessionShown(vmId: string): void {
    if (vmId) this.recordedSessions.add(vmId);
  }

  isRecordedSession(vmId: string): boolean {
    return this.recordedSessions.has(vmId);
  }

  private readonly recordedSessions = new Set<string>();

  /**
   * A create in this process handed the engine `vmId`, a session started before it asked (by an earlier
   * run, under the same idempotency key): see delete.ts.
   */
  handedOverEarlierSession(vmId: string): void {
    this.handedOverSessions.add(vmId);
  }

  wasHandedOverEarlierSession(vmId: string): boolean {
    return this.handedOverSessions.has(vmId);
  }

  private readonly handedOverSessions = new Set<string>();

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
        throw new KeyRefusedError(
          `the service refused the API key (remote-browser:apiKey, an explicit provider's apiKey, or REMOTE_BROWSER_API_KEY) (denied): ${err.serverMessage ?? err.message}`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  /** A new fingerprint of the configured key's account and service, to record with a session (see owner.ts). */
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
