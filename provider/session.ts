import {
  AccountAnswer,
  ENDED_STATES,
  ImagesAnswer,
  RemoteBrowserClient,
  SessionEntry,
  V7AccountAnswer,
  isRemoteBrowserError,
} from "../client";
import type { CreateRequest, V7CreateRequest } from "../client";
import { ProviderConfig, clientForConfig, loadConfig } from "./config";
import { warn } from "./diagnostics";
import {
  API_INPUTS,
  DEFAULT_READY_TIMEOUT_SECONDS,
  Failure,
  PROVIDER_INPUTS,
  SessionInputs,
  catalogFailures,
  isUnknown,
  staticFailures,
} from "./inputs";
import { generationKey, successorKey } from "./keys";
import { createWhenCapacity } from "./capacity";
import { engineWatcher } from "./liveness";
import { PollSchedule, WaitOutcome, waitForRunning } from "./wait";
import { assertSameOwner, ownerFingerprint } from "./owner";
import {
  EndedWhileStartingError,
  EngineGoneError,
  IdempotencyKeysExhaustedError,
  ImportError,
  KeyRefusedError,
  LocationNotAppliedError,
  NotRunningInTimeError,
  PreparationFailedError,
  ProviderError,
  ProviderErrorContext,
  SessionKeptError,
  StaleIdempotencyKeyError,
  StatusUnreadableError,
} from "./errors";

/** What the provider records for a session: every input, plus what the service said about it. */
export interface SessionOutputs extends SessionInputs {
  vmId: string;
  shareUrl?: string;
  shareUrlPath?: string;
  status: string;
  browserName?: string;
  created?: string;
  locationApplied?: boolean;
  locationReason?: string;
  /** The API version the session was started with: it decides what refresh and destroy can do. */
  apiVersion: "v8" | "v7";
  /** The idempotency key the session was started under. */
  __idempotencyKey?: string;
  /** Fingerprint of the account and service that made the session (see owner.ts); absent in state of 0.1.0. */
  owner?: string;
}

export interface ProviderDeps {
  clientFor: (cfg: ProviderConfig) => RemoteBrowserClient;
  schedule?: PollSchedule;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  engineAlive?: () => boolean;
  random?: () => number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How far before the service's answer a failed session's start must lie for it to be an earlier one.
 * The service's clock (its Date header, in whole seconds) is compared with its own timestamps, so client
 * clock skew plays no part; the margin covers the header's rounding. Misjudging a new failed session as
 * an earlier one costs one more attempt under the next key, never a session left running.
 */
const REPLAY_SKEW_MS = 1_000;
/**
 * Earlier generations of the same resource that may have used up keys of the chain: a stack destroyed
 * and brought up again with the same inputs walks one step further each time (a replayed create and a
 * status read per step, no session started).
 */
const MAX_KEY_STEPS = 1_000;

export class SessionProvider {
  private config?: ProviderConfig;
  private client?: RemoteBrowserClient;
  private catalog?: Promise<ImagesAnswer>;
  private accountCheck?: Promise<AccountAnswer | V7AccountAnswer>;
  private readonly deps: ProviderDeps;
  private readonly engineAlive: () => boolean;

  constructor(deps: Partial<ProviderDeps> = {}) {
    this.deps = { clientFor: clientForConfig, ...deps };
    this.engineAlive = deps.engineAlive ?? engineWatcher();
  }

  /** Reads the provider's settings; `get` takes a key of the `remote-browser` namespace without prefix. */
  configure(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): void {
    this.config = loadConfig(get, env);
    this.client = undefined;
    this.catalog = undefined;
    this.accountCheck = undefined;
  }

  private cfg(): ProviderConfig {
    // Engines older than the dynamic provider's `configure` leave the environment as the only source.
    if (!this.config) this.config = loadConfig(() => undefined);
    return this.config;
  }

  private api(): RemoteBrowserClient {
    if (!this.client) this.client = this.deps.clientFor(this.cfg());
    return this.client;
  }

  async check(_olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    const cfg = this.cfg();
    const failures = staticFailures(news, cfg.apiVersion);
    await this.checkAccount();
    if (cfg.apiVersion === "v8") {
      const failed = new Set(failures.map((f) => f.property));
      const catalog = await this.images();
      for (const f of catalogFailures(news, catalog)) if (!failed.has(f.property)) failures.push(f);
      if (news.egress === "residential" && !failed.has("egress") && !failures.some((f) => f.property === "egress")) {
        const residential = await this.residentialFailure();
        if (residential) failures.push(residential);
      }
    }
    return { inputs: withoutNulls(news), failures };
  }

  diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    const replaces = API_INPUTS.filter((k) => differs(olds[k], news[k]));
    const updates = PROVIDER_INPUTS.filter((k) => differs(olds[k], news[k]));
    // The old session is ended before its replacement starts, so that a plan whose running limit is
    // already used up (a limit of 1, say) can still change a session. The share link changes either way.
    return {
      changes: replaces.length + updates.length > 0,
      replaces,
      deleteBeforeReplace: replaces.length > 0,
    };
  }

  async create(inputs: SessionInputs & Record<string, unknown>): Promise<{ id: string; outs: SessionOutputs }> {
    const v7 = this.cfg().apiVersion === "v7";
    const { id, outs } = inputs.__adoptVmId
      ? await this.adopt(inputs, inputs.__adoptVmId)
      : v7
        ? await this.createV7(inputs)
        : await this.createV8(inputs);
    // The engine's wire format has no `undefined`: absent fields are left out.
    return { id, outs: withoutNulls(outs as unknown as Record<string, unknown>) as unknown as SessionOutputs };
  }

  private async createV8(inputs: SessionInputs & Record<string, unknown>): Promise<{ id: string; outs: SessionOutputs }> {
    const client = this.api();
    const now = this.deps.now ?? Date.now;
    const timeoutMs = (inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS) * 1000;
    const deadline = now() + timeoutMs;
    const request = apiRequest(inputs);
    const userKey = inputs.idempotencyKey;
    // Known before any session starts: a key whose account cannot be read starts nothing.
    const owner = await this.currentOwner();
    const baseKey = userKey ?? generationKey(inputs.__seed, undefined, inputs, this.cfg().idempotencySecret);

    for (let step = 0; step < MAX_KEY_STEPS; step++) {
      const key = successorKey(baseKey, step);
      // The service's clock at its answer, so that telling an earlier session from a new one does not
      // depend on how well our clock agrees with the service's.
      let answeredAt = now();
      const answer = await createWhenCapacity({
        onServerTime: (ms) => (answeredAt = ms),
        client,
        request: { ...request, idempotencyKey: key },
        waitMs: (inputs.waitForCapacitySeconds ?? this.cfg().waitForCapacitySeconds) * 1000,
        engineAlive: this.engineAlive,
        sleep: this.deps.sleep ?? realSleep,
        now,
        random: this.deps.random ?? Math.random,
        onWaiting: (q) =>
          void warn(
            `BrowserSession: the account's running limit is reached (${q.running_sessions_used} of ${q.running_session_limit}); ` +
              `waiting up to ${inputs.waitForCapacitySeconds ?? this.cfg().waitForCapacitySeconds} s for a free slot`,
          ),
      });
      const vmId = answer.vmId;
      const outs: SessionOutputs = {
        ...mirrorInputs(inputs),
        vmId,
        shareUrl: answer.shareUrl,
        shareUrlPath: answer.shareUrlPath,
        status: "starting",
        locationApplied: answer.location_applied,
        locationReason: answer.location_reason,
        apiVersion: "v8",
        __idempotencyKey: key,
        owner,
      };
      let outcome: WaitOutcome;
      try {
        outcome = await waitForRunning({
          client,
          vmId,
          timeoutMs: Math.max(0, deadline - now()),
          schedule: this.deps.schedule,
          sleep: this.deps.sleep,
          now,
          engineAlive: this.engineAlive,
          // Past the first key the answer is likely a replay of an ended session: look at once.
          pollFirst: step > 0,
        });
      } catch (err) {
        // The session exists but its status could not be read: thrown as is, the engine would forget it.
        if (!this.engineAlive()) throw err;
        return this.failAndRemove(inputs, outs, StatusUnreadableError, `waiting for session ${vmId} to run failed: ${errorText(err)}`);
      }
      if (isStaleReplay(outcome, answeredAt)) {
        // The key's first answer was a session of an earlier generation that has ended since.
        if (userKey) {
          throw new StaleIdempotencyKeyError(
            `idempotencyKey "${userKey}" belongs to session ${vmId}, which has ended (${describe(outcome)}); ` +
              "set a new idempotencyKey to start a new session",
            { vmId },
          );
        }
        continue;
      }
      return this.settle(inputs, outs, outcome, timeoutMs);
    }
    throw new IdempotencyKeysExhaustedError(`no fresh idempotency key found after ${MAX_KEY_STEPS} ended sessions of this resource`);
  }

  /** Turns the wait's outcome into a created session, or into an error with no session left behind. */
  private async settle(
    inputs: SessionInputs & Record<string, unknown>,
    outs: SessionOutputs,
    outcome: WaitOutcome,
    timeoutMs: number,
  ): Promise<{ id: string; outs: SessionOutputs }> {
    const vmId = outs.vmId;
    switch (outcome.kind) {
      case "running": {
        const running = { ...outs, ...fromEntry(outcome.entry) };
        if (running.locationApplied === false) {
          const why = `session ${vmId} started on the default connection: no free exit in "${inputs.country}" (${running.locationReason ?? "unavailable"})`;
          if (inputs.requireLocation) return this.failAndRemove(inputs, running, LocationNotAppliedError, `${why}, and requireLocation is set`);
          await warn(`BrowserSession ${why}; set requireLocation to fail instead`);
        }
        return { id: vmId, outs: running };
      }
      case "failed":
        return this.failAndRemove(inputs, outs, PreparationFailedError, `session ${vmId} could not start: its preparation ended in state "error"`);
      case "ended":
        throw new EndedWhileStartingError(`session ${vmId} ended (state "${outcome.entry.status}") before it was running`, { vmId });
      case "unknown":
        throw new EndedWhileStartingError(`session ${vmId} was accepted but the service no longer knows it`, { vmId });
      case "timeout":
        return this.failAndRemove(
          inputs,
          outs,
          NotRunningInTimeError,
          `session ${vmId} was not running after ${timeoutMs / 1000} s (last state "${outcome.last ?? "unknown"}"); raise readyTimeoutSeconds if preparation is slow`,
        );
      case "engine-gone":
        // Leave the session alone: the next `pulumi up` adopts it through the same idempotency key.
        throw new EngineGoneError(`the engine went away while session ${vmId} was starting; leaving it for the next update`, { vmId });
    }
  }

  /** Ends a session that cannot be handed over, then fails; if ending fails too, the engine keeps the id. */
  private async failAndRemove(
    inputs: Record<string, unknown>,
    outs: SessionOutputs,
    Failure: new (message: string, ctx?: ProviderErrorContext) => ProviderError,
    why: string,
  ): Promise<never> {
    try {
      await this.api().removeSession(outs.vmId);
    } catch (err) {
      // The engine records a resource that was created but failed to initialise; the link stays out of it.
      const { shareUrl: _link, shareUrlPath: _path, ...kept } = outs;
      throw new SessionKeptError(
        `${why}; ending it failed as well (${errorText(err)}), so it is kept in the stack: run \`pulumi destroy\` or \`pulumi up\` again to end it`,
        {
          vmId: outs.vmId,
          cause: err,
          // Outputs of a failed create are stored as they are given: the stored provider must be among
          // them, or the later destroy could not load it.
          properties: withoutNulls({ ...kept, status: "unknown", __provider: inputs.__provider } as unknown as Record<string, unknown>),
        },
      );
    }
    throw new Failure(`${why}; the session was ended`, { vmId: outs.vmId });
  }

  /**
   * Import: takes over a session that was started elsewhere. The status operation tells its state,
   * browser and start time but not its share link, so an adopted session has no shareUrl.
   */
  private async adopt(inputs: SessionInputs & Record<string, unknown>, vmId: string): Promise<{ id: string; outs: SessionOutputs }> {
    if (this.cfg().apiVersion === "v7") throw new ImportError(`importing ${vmId}: API version 7 has no status operation`, { vmId });
    const client = this.api();
    const owner = await this.currentOwner();
    const entry = await client.session(vmId);
    if (!entry) {
      throw new ImportError(`importing ${vmId}: the service knows no such session of the configured key's account (${owner})`, { vmId });
    }
    if (entry.status === "error" || ENDED_STATES.includes(entry.status)) {
      throw new ImportError(`importing ${vmId}: the session has ended (state "${entry.status}")`, { vmId });
    }
    const image = (await this.images()).images.find((i) => i.name === entry.name);
    if (image && image.id !== inputs.browser) {
      throw new ImportError(`importing ${vmId}: it runs ${entry.name} (browser "${image.id}"), not browser "${inputs.browser}"`, { vmId });
    }
    const outs: SessionOutputs = { ...mirrorInputs(inputs), vmId, status: entry.status, apiVersion: "v8", ...fromEntry(entry), owner };
    if (entry.status === "running") return { id: vmId, outs };
    const timeoutMs = (inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS) * 1000;
    const outcome = await waitForRunning({
      client,
      vmId,
      timeoutMs,
      schedule: this.deps.schedule,
      sleep: this.deps.sleep,
      now: this.deps.now,
      engineAlive: this.engineAlive,
    });
    if (outcome.kind !== "running") throw new ImportError(`importing ${vmId}: it did not reach running (${describe(outcome)})`, { vmId });
    return { id: vmId, outs: { ...outs, ...fromEntry(outcome.entry) } };
  }

  private async createV7(inputs: SessionInputs & Record<string, unknown>): Promise<{ id: string; outs: SessionOutputs }> {
    const { egress: _e, idempotencyKey: _k, ...rest } = apiRequest(inputs);
    const owner = await this.currentOwner();
    const answer = await this.api().v7.createSession(rest as V7CreateRequest);
    await warn(
      `BrowserSession ${answer.vmId} was started with API version 7, which has no status or end operation: ` +
        "it was not waited for, refresh cannot see it and destroy cannot end it (use apiVersion v8)",
    );
    return {
      id: answer.vmId,
      outs: {
        ...mirrorInputs(inputs),
        vmId: answer.vmId,
        shareUrl: answer.shareUrl,
        shareUrlPath: answer.shareUrlPath,
        status: "starting",
        apiVersion: "v7",
        owner,
      },
    };
  }

  /** Refresh. (The engine's import would call this without props; the SDK turns imports into adoptions.) */
  async read(id: string, props: Record<string, unknown> = {}): Promise<{ id?: string; props?: Record<string, unknown>; inputs?: Record<string, unknown> }> {
    if ((props.apiVersion ?? this.cfg().apiVersion) === "v7") {
      await warn(`BrowserSession ${id}: API version 7 has no status operation; refresh keeps the recorded state`);
      return { id, props, inputs: inputsFrom(props) };
    }
    // "Unknown" means gone only when the account and service that made the session are the ones asking.
    const owner = await this.currentOwner();
    assertSameOwner(id, props.owner, owner, "refreshing");
    const entry = await this.api().session(id);
    if (!entry || entry.status === "error" || ENDED_STATES.includes(entry.status)) return {};
    // A session recorded before fingerprints existed is the current account's, since it knows it: record
    // that now (the one refresh after the upgrade shows this as a change of the session's outputs).
    const outs = withoutNulls({ ...props, ...fromEntry(entry), owner });
    return { id, props: outs, inputs: inputsFrom(outs) };
  }

  update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
    const outs = { ...olds };
    for (const k of PROVIDER_INPUTS) outs[k] = news[k] ?? undefined;
    return { outs: withoutNulls(outs) };
  }

  async delete(id: string, props: Record<string, unknown>): Promise<void> {
    if (props.apiVersion === "v7") {
      await warn(`BrowserSession ${id} was started with API version 7, which cannot end sessions: end it in the service's console`);
      return;
    }
    const client = this.api();
    if (props.owner !== undefined) {
      let owner: string;
      try {
        owner = await this.currentOwner();
      } catch (err) {
        throw keptInStack(id, err);
      }
      assertSameOwner(id, props.owner, owner, "ending");
    }
    try {
      await client.removeSession(id);
    } catch (err) {
      // `denied` means an unknown session -- or a refused key. Only the first counts as gone.
      if (isRemoteBrowserError(err) && err.code === "denied") {
        let entry: SessionEntry | undefined;
        try {
          entry = await client.session(id);
        } catch (lookup) {
          throw keptInStack(id, lookup);
        }
        if (!entry) return;
      }
      throw keptInStack(id, err);
    }
  }

  /** The fingerprint of the configured key's account and service (one account read per process). */
  private async currentOwner(): Promise<string> {
    const account = await this.account();
    return ownerFingerprint(account.contact, this.cfg().baseUrl);
  }

  private async account(): Promise<AccountAnswer | V7AccountAnswer> {
    const cfg = this.cfg();
    if (!this.accountCheck) {
      const client = this.api();
      this.accountCheck = cfg.apiVersion === "v7" ? client.v7.account() : client.account();
    }
    try {
      return await this.accountCheck;
    } catch (err) {
      this.accountCheck = undefined;
      if (isRemoteBrowserError(err) && err.code === "denied") {
        throw new KeyRefusedError(
          `the service refused the API key (remote-browser:apiKey or REMOTE_BROWSER_API_KEY) (denied): ${err.serverMessage ?? err.message}`,
        );
      }
      throw err;
    }
  }

  /** The key and the account's programmatic access, checked once per process before any session starts. */
  private async checkAccount(): Promise<void> {
    const account = await this.account();
    if (account.feature_programmatic_access === false) {
      throw new KeyRefusedError(
        "the account behind remote-browser:apiKey has no programmatic access: enable it in the account's settings",
      );
    }
  }

  private async residentialFailure(): Promise<Failure | undefined> {
    const account = (await this.accountCheck) as AccountAnswer | undefined;
    if (!account || !("residential_bytes_used_cycle" in account)) return undefined;
    const limitMb = account.residential_cycle_mb_limit;
    if (limitMb === null) {
      return { property: "egress", reason: "the account's plan includes no residential data (residential_cycle_mb_limit is null)" };
    }
    if (account.residential_bytes_used_cycle >= limitMb * 1024 * 1024) {
      return { property: "egress", reason: `the account's residential data for this cycle (${limitMb} MB) is used up` };
    }
    return undefined;
  }

  private images(): Promise<ImagesAnswer> {
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

function apiRequest(inputs: Record<string, unknown>): CreateRequest {
  const req: Record<string, unknown> = {};
  for (const k of API_INPUTS) if (inputs[k] !== undefined && inputs[k] !== null) req[k] = inputs[k];
  return req as CreateRequest;
}

function mirrorInputs(inputs: Record<string, unknown>): SessionInputs {
  const out: Record<string, unknown> = {};
  for (const k of [...API_INPUTS, ...PROVIDER_INPUTS, "__seed", "__adoptVmId"]) if (inputs[k] !== undefined && inputs[k] !== null) out[k] = inputs[k];
  return out as unknown as SessionInputs;
}

/** The inputs a refresh records, rebuilt from outputs (which mirror them), so that it creates no diff. */
function inputsFrom(outs: Record<string, unknown>): Record<string, unknown> {
  return withoutNulls(mirrorInputs(outs) as unknown as Record<string, unknown>);
}

function fromEntry(entry: SessionEntry): Partial<SessionOutputs> {
  const out: Partial<SessionOutputs> = { status: entry.status, browserName: entry.name, created: entry.created };
  if (entry.location_applied !== undefined) out.locationApplied = entry.location_applied;
  if (entry.location_reason !== undefined) out.locationReason = entry.location_reason;
  return out;
}

/**
 * Whether the key's answer named a session of an earlier generation rather than a new one. A session
 * that has ended, or that the service no longer knows, cannot be the one just started. One in state
 * `error` may be either; it is an earlier one when it was created well before the service answered.
 */
function isStaleReplay(outcome: WaitOutcome, answeredAt: number): boolean {
  if (outcome.kind === "unknown" || outcome.kind === "ended") return true;
  if (outcome.kind !== "failed") return false;
  const created = Date.parse(outcome.entry.created);
  return Number.isFinite(created) && created < answeredAt - REPLAY_SKEW_MS;
}

function describe(outcome: WaitOutcome): string {
  return "entry" in outcome ? `state "${outcome.entry.status}"` : outcome.kind;
}

function differs(a: unknown, b: unknown): boolean {
  if (isUnknown(b)) return true;
  const na = a === undefined || a === null;
  const nb = b === undefined || b === null;
  if (na || nb) return na !== nb;
  return JSON.stringify(a) !== JSON.stringify(b);
}

function withoutNulls<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out as T;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function keptInStack(id: string, err: unknown): SessionKeptError {
  return new SessionKeptError(`ending session ${id} failed, so it stays in the stack for a later destroy to retry: ${errorText(err)}`, {
    vmId: id,
    cause: err,
  });
}
