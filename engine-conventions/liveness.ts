import * as fs from "node:fs";
import * as net from "node:net";

/**
 * Tells whether the engine that started this provider process is still there.
 *
 * A `pulumi up` killed with SIGKILL leaves its plugins running. Were this process to go on waiting and
 * then "clean up" at its deadline, it would end the very session that the next `up` adopts through the
 * idempotency key. So long waits check this and stop acting once the engine is gone.
 *
 * The engine starts each plugin with a pipe as its standard input, holds the pipe's other end for as long as
 * it holds the plugin, never writes to it, and lets a plugin go by killing it. So, for a process whose
 * standard input is a pipe, the end of that input is the one sign: it comes when, and only when, the engine
 * process is gone (the kernel closes its end), however the process tree looks and even for a watcher armed
 * after the engine died. Nothing else counts there: the engine's address refuses connections for a while
 * before the engine lets its plugins go (it closes its servers while it closes its plugins), and a plugin
 * that left in that window was reported by the engine as "exited prematurely", failing the command.
 *
 * A process given an engine address but no such pipe (started otherwise, e.g. under a supervisor) goes by
 * the two older signs, either of which means gone:
 * - the engine's address (the plugin's first argument) refuses connections (see probeAddress below);
 * - the process tree changed: the engine starts the plugin directly or through a small shell script, so
 *   the engine is this process's parent or, when the parent is that shell, its grandparent; when either
 *   dies, the orphan is re-parented.
 *
 * Usable from any plugin process: `address` defaults to the process's first argument, and the pipe is
 * watched only then (a caller that names the address, a test, says with `stdin` whether to watch it); a
 * process that was not given an engine address (a test, a program, an attached plugin) is watched by its
 * process tree alone.
 */
export interface EngineWatch {
  /** False once the engine is gone; it stays false. */
  alive(): boolean;
  /** Why the engine is taken to be gone, once it is. */
  reason(): string | undefined;
}

/** The signs a watch reads, as the exit rule takes them. */
export interface EngineSigns {
  /** The engine's pipe on standard input: none (not a pipe, or not watched), open, or ended. */
  enginePipe: "none" | "open" | "ended";
  /** The engine's address refused a connection (undefined where there is no address to probe). */
  addressRefused?: boolean;
  /** This process's parent (and the shell's parent) are those it started with. */
  treeIntact: boolean;
}

/** The rule: why the engine is gone, or undefined while it holds this process. Pure, for tests. */
export function engineGoneReason(signs: EngineSigns): string | undefined {
  if (signs.enginePipe === "ended") return "its standard input, the engine's pipe, ended: the engine process is gone";
  // While the engine holds its end of the pipe it holds the plugin, whatever its address answers.
  if (signs.enginePipe === "open") return undefined;
  if (signs.addressRefused) return "the engine's address refuses connections";
  if (!signs.treeIntact) return "its parent process changed: the engine that started it is gone";
  return undefined;
}

export function engineWatch(opts: { address?: string; intervalMs?: number; stdin?: boolean } = {}): EngineWatch {
  const treeIntact = processTreeWatcher();
  const address = parseEngineAddress(opts.address ?? process.argv[2]);
  const pipe = (opts.stdin ?? (opts.address === undefined && address !== undefined)) ? enginePipe() : undefined;
  // The address is probed only where no pipe speaks for the engine.
  const probe = address && !pipe ? probeAddress(address, opts.intervalMs) : undefined;
  let gone: string | undefined;
  const reason = () => {
    gone ??= engineGoneReason({ enginePipe: pipe ? (pipe.ended ? "ended" : "open") : "none", addressRefused: probe?.refused, treeIntact: treeIntact() });
    return gone;
  };
  return { alive: () => reason() === undefined, reason };
}

/** `engineWatch(opts).alive`: what the core's waits take (ProviderContext.engineAlive). */
export function engineWatcher(opts: { address?: string; intervalMs?: number; stdin?: boolean } = {}): () => boolean {
  return engineWatch(opts).alive;
}

/**
 * Ends this plugin process once its engine is gone: nothing can reach it any more, and acting on (ending)
 * a session the next update will adopt would do harm. It says why on standard error, which the engine
 * keeps in its log of the plugin. The timer is unref'd: it never keeps a process alive.
 */
export function exitWhenEngineGone(watch: EngineWatch = engineWatch(), intervalMs = 1_000): void {
  setInterval(() => {
    const reason = watch.reason();
    if (reason === undefined) return;
    process.stderr.write(`remote-browser: plugin process ${process.pid} exits by itself: ${reason}\n`);
    process.exit(0);
  }, intervalMs).unref();
}

/** The process's one watch of its standard input, once looked at (null: not a pipe). */
const stdinWatch: { pipe?: { readonly ended: boolean } | null } = {};

/**
 * The end of standard input, when it is a pipe or socket (as an engine starts its plugins); undefined otherwise.
 * One per process, read without keeping the process alive: the engine writes nothing to it.
 */
function enginePipe(): { readonly ended: boolean } | undefined {
  if (stdinWatch.pipe !== undefined) return stdinWatch.pipe ?? undefined;
  let isPipe = false;
  try {
    // Go's engine hands a pipe; a Node.js parent, a socket pair.
    const stat = fs.fstatSync(0);
    isPipe = stat.isFIFO() || stat.isSocket();
  } catch {
    // no standard input at all
  }
  if (!isPipe) {
    stdinWatch.pipe = null;
    return undefined;
  }
  let ended = false;
  const stdin = process.stdin;
  stdin.on("data", () => undefined);
  stdin.once("end", () => (ended = true));
  // An error reading the pipe says nothing about the engine: only its end counts.
  stdin.on("error", () => undefined);
  stdin.resume();
  (stdin as unknown as { unref?: () => void }).unref?.();
  stdinWatch.pipe = {
    get ended() {
      return ended;
    },
  };
  return stdinWatch.pipe;
}

function processTreeWatcher(): () => boolean {
  const parent = process.ppid;
  const grandparent = shellParent(parent);
  return () => {
    if (process.ppid !== parent) return false;
    if (grandparent === undefined) return true;
    return parentOf(parent) === grandparent;
  };
}

function shellParent(pid: number): number | undefined {
  const stat = readStat(pid);
  if (!stat || !/^(sh|dash|bash|zsh|ash)$/.test(stat.comm)) return undefined;
  return stat.ppid;
}

/** The parent of `pid` from /proc; undefined where there is no /proc or the process is gone. */
export function parentOf(pid: number): number | undefined {
  return readStat(pid)?.ppid;
}

function readStat(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may itself contain spaces or parentheses.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const ppid = Number(text.slice(close + 2).split(" ")[1]);
    return Number.isFinite(ppid) ? { comm, ppid } : undefined;
  } catch {
    return undefined; // no /proc (not Linux) or the process is gone
  }
}

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

/**
 * The engine's gRPC address, where the plugin sends its progress lines and warnings (diagnostics.ts).
 *
 * An engine that starts the plugin passes its address as the first argument, and says it again in
 * Handshake. An engine that attaches to a plugin it did not start (`PULUMI_DEBUG_PROVIDERS=name:port`, the
 * way provider test harnesses drive a plugin) passes nothing: Handshake is the only place it says where it
 * is, and each engine that attaches says its own. So the latest Handshake wins, then the argument.
 */
const announced: { address?: string } = {};

/** Records the address an engine gave in Handshake. */
export function engineAnnounced(address: string | undefined): void {
  if (address) announced.address = address;
}

/** The address of the engine that last spoke to this plugin, else the one it was started with. */
export function engineAddress(): string | undefined {
  return announced.address ?? process.argv[2];
}

/**
 * How the processes the engine starts are told apart, by the scripts @pulumi/pulumi ships: these paths
 * are the SDK's layout, not its documented API, and are stated here once.
 */

/**
 * The dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`): its launcher runs the folder's
 * `index.js` as resolved (`.../cmd/dynamic-provider/index.js`), and a bare folder path runs it too.
 */
export function isDynamicProviderHost(script: string | undefined): boolean {
  return /[\\/]cmd[\\/]dynamic-provider([\\/]|$)/.test(script ?? "");
}

/** The folder of the `@pulumi/pulumi` whose dynamic provider host `script` is, when it is one. */
export function dynamicProviderSdk(script: string | undefined): string | undefined {
  return isDynamicProviderHost(script) ? script!.replace(/[\\/]cmd[\\/]dynamic-provider([\\/].*)?$/, "") : undefined;
}

/** The Node.js language host's plugin runner (`@pulumi/pulumi/cmd/run-plugin`), which loads a plugin package's entry point. */
export function isRunPlugin(script: string | undefined): boolean {
  return /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]run-plugin[\\/]/.test(script ?? "");
}

/** A resource plugin's executable, by the name the engine looks it up by (`pulumi-resource-<name>`). */
export function isResourcePlugin(script: string | undefined): boolean {
  return /(^|[\\/])pulumi-resource-[^\\/]+$/.test(script ?? "");
}

/** The dynamic provider, or a resource plugin script, given an engine address. */
export function isPluginProcess(argv: string[]): boolean {
  const script = argv[1];
  return (isDynamicProviderHost(script) || isResourcePlugin(script)) && parseEngineAddress(argv[2]) !== undefined;
}
