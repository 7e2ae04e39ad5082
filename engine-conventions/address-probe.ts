import * as net from "node:net";

/**
 * Whether anything still listens at the engine's address.
 *
 * Every plugin is started with the engine's gRPC address (`127.0.0.1:<port>`) as its first argument, and
 * the engine closes that server only after it has closed its plugins. A refused connection there means the
 * engine is gone, however the plugin's process tree looks: it holds for a process whose parent died
 * before it looked (it would take PID 1 or a subreaper for its engine) and under a subreaper alike.
 */
export interface AddressProbe {
  /** True once a connection was refused; it stays true (a port is not handed back to a live engine). */
  readonly refused: boolean;
  /** Resolves when a connection is refused (never, while the engine lives). */
  readonly gone: Promise<void>;
}

/** `host:port` of the engine, or undefined for anything else (a process that is not a plugin). */
export function parseEngineAddress(arg: string | undefined): { host: string; port: number } | undefined {
  const m = /^(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/.exec(arg ?? "");
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1] === "[::1]" ? "::1" : m[1]!, port };
}

const probes = new Map<string, AddressProbe>();

/**
 * One probe per address and process, whoever asks: a connection attempt every `intervalMs` on an unref'd
 * timer, so that it never keeps the process alive. Only a refusal counts: a time-out or another error on a
 * loaded machine says nothing about the engine.
 */
export function probeAddress(address: { host: string; port: number }, intervalMs = 1_000): AddressProbe {
  const key = `${address.host}:${address.port}`;
  const existing = probes.get(key);
  if (existing) return existing;
  let refused = false;
  let markGone!: () => void;
  const gone = new Promise<void>((resolve) => (markGone = resolve));
  const probe: AddressProbe = {
    get refused() {
      return refused;
    },
    gone,
  };
  probes.set(key, probe);

  const attempt = () => {
    const socket = net.connect({ host: address.host, port: address.port });
    socket.unref();
    socket.setTimeout(Math.max(intervalMs, 5_000));
    let settled = false;
    const settle = (wasRefused: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (wasRefused) {
        refused = true;
        markGone();
      } else {
        setTimeout(attempt, intervalMs).unref();
      }
    };
    socket.once("connect", () => settle(false));
    socket.once("timeout", () => settle(false));
    // `on`, not `once`: an error after the verdict must find a listener too.
    socket.on("error", (err: NodeJS.ErrnoException) => settle(err.code === "ECONNREFUSED"));
  };
  attempt();
  return probe;
}
