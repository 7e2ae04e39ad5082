import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { EmulatorControl } from "./control";
import { createControl } from "./control";
import { admitHost, isLoopbackHost } from "./origin-guard";
import { createRandom } from "./random";
import { createApiHandler, createViewerHandler } from "./server";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_PREP_MS, DEFAULT_RESIDENTIAL_BYTES_PER_SECOND, DEFAULT_STOP_MS } from "./settings";
import { EmulatorState } from "./state";
import { DEFAULT_RESIDENTIAL_MB } from "./accounts";
import { Latitude } from "./latitude";
import type { LatitudeProfile } from "./latitude";
export { DEFAULT_LATITUDE } from "./latitude";
export type { LatitudeProfile } from "./latitude";

export type { EmulatorControl, PreparationChange, SessionSeed, SessionView, SettingsChange, SettingsView } from "./control";
export { EmulatorControlError } from "./control";
export type { AccountSpec, V7Plan } from "./accounts";
export type { BookCounters, RequestLogEntry } from "./books";
export type { ActiveFault, FaultKind, FaultOperation, FaultSpec } from "./faults";
export type { PreparationControl } from "./sessions";
export type { Operation, SessionStatus } from "./types";
export { openApiDocument } from "./openapi";

export interface EmulatorOptions {
  /** Address to listen on; anything but a loopback address needs `allowRemote`. @default "127.0.0.1" */
  host?: string;
  /**
   * Serve other machines: listen on a non-loopback `host` and answer requests for any Host header. Off,
   * the emulator refuses requests whose Host is not loopback (a web page's requests name its own domain).
   * Anyone who reaches it then drives the control surface, which takes no key. @default false
   */
  allowRemote?: boolean;
  /** API port; 0 picks a free one. @default 0 */
  port?: number;
  /** Port of the share-link viewer, its own origin; 0 picks a free one. @default 0 */
  sharePort?: number;
  /** Key of the default account. @default "rb_test_" + 32 random hex characters */
  apiKey?: string;
  /** Preparation time of a session. @default 1500 */
  prepMs?: number;
  /** Uniform jitter (+/-) on prepMs; 0 disables. @default 10% of prepMs */
  prepJitterMs?: number;
  /** Default account's running_session_limit. @default 5 */
  runningLimit?: number;
  /** Default account's cycle_session_limit; null = no cap. @default null */
  cycleLimit?: number | null;
  /** Requests per second per key; 0 = off. @default 0 */
  rateLimit?: number;
  /** Largest accepted request body. @default 65536 */
  maxBodyBytes?: number;
  /**
   * The latitude profile (latitude.ts): answers that take every freedom the spec leaves, for testing the
   * provider against a service less literal than this emulator. `true` takes its defaults. @default false
   */
  latitude?: boolean | Partial<LatitudeProfile>;
  /** Makes jitter, session ids and the generated key repeatable. Share link ids stay random. */
  seed?: number;
}

export interface Emulator {
  /** http://<host>:<port> */
  origin: string;
  /** origin + "/v8" */
  apiBaseUrl: string;
  /** origin + "/v7" */
  v7BaseUrl: string;
  /** Origin of the share-link viewer (another port, so another origin). */
  shareBase: string;
  /** origin + "/_emulator" */
  controlUrl: string;
  /** Key of the default account. */
  apiKey: string;
  control: EmulatorControl;
  /** Stops timers and both servers; safe to call more than once. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** Answers malformed HTTP with a JSON refusal instead of Node's bare 400. */
function guardClientErrors(server: Server): void {
  server.on("clientError", (_err, socket) => {
    if (!socket.writable) return socket.destroy();
    const body = JSON.stringify({ status: "denied", message: "malformed HTTP request" });
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const host = opts.host ?? "127.0.0.1";
  const allowRemote = opts.allowRemote === true;
  if (!allowRemote && !isLoopbackHost(host)) {
    throw new Error(
      `host ${host} is not a loopback address: the emulator's control surface takes no key, so anyone who ` +
        `reaches it could drive it. Listen on 127.0.0.1 (the default), or pass --allow-remote (allowRemote: true) ` +
        `to serve other machines knowingly`,
    );
  }
  const random = createRandom(opts.seed);
  const prepMs = opts.prepMs ?? DEFAULT_PREP_MS;
  const apiKey = opts.apiKey ?? `rb_test_${random.hex(16)}`;
  const state = new EmulatorState(
    {
      prepMs,
      prepJitterMs: opts.prepJitterMs ?? Math.round(prepMs * 0.1),
      stopMs: DEFAULT_STOP_MS,
      residentialBytesPerSecond: DEFAULT_RESIDENTIAL_BYTES_PER_SECOND,
      rateLimit: opts.rateLimit ?? 0,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    },
    {
      apiKey,
      contact: "developer@example.test",
      runningLimit: opts.runningLimit ?? 5,
      cycleLimit: opts.cycleLimit ?? null,
      residentialMb: DEFAULT_RESIDENTIAL_MB,
    },
    random,
  );
  if (opts.latitude) state.latitude = new Latitude(opts.latitude === true ? {} : opts.latitude);
  const control = createControl(state);

  const apiHandler = createApiHandler(state, control);
  const viewerHandler = createViewerHandler(state);
  const api = createServer((req, res) => {
    if (admitHost(req, res, allowRemote)) void apiHandler(req, res);
  });
  const viewer = createServer((req, res) => {
    if (admitHost(req, res, allowRemote)) viewerHandler(req, res);
  });
  guardClientErrors(api);
  guardClientErrors(viewer);
  // Both servers are local helpers: they must never keep a test process alive.
  api.keepAliveTimeout = 1000;
  viewer.keepAliveTimeout = 1000;

  let apiPort: number;
  let sharePort: number;
  try {
    apiPort = await listen(api, opts.port ?? 0, host);
    sharePort = await listen(viewer, opts.sharePort ?? 0, host);
  } catch (err) {
    state.close();
    await Promise.all([closeServer(api), closeServer(viewer)]);
    throw err;
  }

  const origin = `http://${urlHost(host)}:${apiPort}`;
  state.shareBase = `http://${urlHost(host)}:${sharePort}`;
  let closing: Promise<void> | undefined;
  return {
    origin,
    apiBaseUrl: `${origin}/v8`,
    v7BaseUrl: `${origin}/v7`,
    shareBase: state.shareBase,
    controlUrl: `${origin}/_emulator`,
    apiKey,
    control,
    close() {
      closing ??= (async () => {
        state.close();
        await Promise.all([closeServer(api), closeServer(viewer)]);
      })();
      return closing;
    },
  };
}
