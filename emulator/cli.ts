#!/usr/bin/env node
import type { EmulatorOptions } from "./index";
import { startEmulator } from "./index";
import { isLoopbackHost } from "./origin-guard";

const USAGE = `usage: emulator [--port P] [--api-key KEY] [--running-limit N] [--cycle-limit N|none]
                [--prep-ms MS] [--prep-jitter-ms MS] [--rate-limit R] [--share-port Q] [--host H] [--seed N]
                [--latitude]       (answers that take every freedom the spec leaves: emulator/latitude.ts)
                [--allow-remote]   (needed for a non-loopback --host: serves other machines, control surface included)`;

class UsageError extends Error {}

function count(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag}: expected a whole number >= 0, got ${JSON.stringify(value)}`);
  return Number(value);
}

function port(flag: string, value: string): number {
  const n = count(flag, value);
  if (n > 65535) throw new UsageError(`${flag}: ${n} is not a port number`);
  return n;
}

export function parseArgs(argv: readonly string[]): EmulatorOptions | "help" {
  const opts: EmulatorOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--allow-remote") {
      opts.allowRemote = true;
      continue;
    }
    if (arg === "--latitude") {
      opts.latitude = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (!flag.startsWith("--")) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    if (value === undefined || (eq < 0 && value.startsWith("--"))) throw new UsageError(`${flag}: missing value`);
    switch (flag) {
      case "--port":
        opts.port = port(flag, value);
        break;
      case "--share-port":
        opts.sharePort = port(flag, value);
        break;
      case "--host":
        opts.host = value;
        break;
      case "--api-key":
        if (value.trim() === "" || /\s/.test(value)) throw new UsageError("--api-key: must be a non-empty key without spaces");
        opts.apiKey = value;
        break;
      case "--running-limit":
        opts.runningLimit = count(flag, value);
        break;
      case "--cycle-limit":
        opts.cycleLimit = value === "none" ? null : count(flag, value);
        break;
      case "--prep-ms":
        opts.prepMs = count(flag, value);
        break;
      case "--prep-jitter-ms":
        opts.prepJitterMs = count(flag, value);
        break;
      case "--rate-limit":
        opts.rateLimit = count(flag, value);
        break;
      case "--seed":
        opts.seed = count(flag, value);
        break;
      default:
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  if (opts.host !== undefined && !isLoopbackHost(opts.host) && !opts.allowRemote) {
    throw new UsageError(
      `--host ${opts.host}: not a loopback address. The control surface takes no key, so anyone who reaches the ` + `emulator could drive it; add --allow-remote to serve other machines knowingly`,
    );
  }
  return opts;
}

async function main(): Promise<void> {
  let opts: EmulatorOptions | "help";
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (opts === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (opts.allowRemote) {
    process.stderr.write(
      "warning: --allow-remote: the emulator answers requests for any host name, and its control surface " +
        "(/_emulator, no key) lets anyone who reaches it read every session and share link and change its behaviour\n",
    );
  }
  const emulator = await startEmulator(opts);
  // Handlers go in before READY is printed: a caller may signal the moment it reads that line.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping\n`);
    void emulator.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const lines = [`API base URL: ${emulator.apiBaseUrl}`, `v7 base URL: ${emulator.v7BaseUrl}`, `Share base: ${emulator.shareBase}`, `Control: ${emulator.controlUrl}`];
  // A key passed on the command line is already known to the caller; a generated one is not.
  if (opts.apiKey === undefined) lines.push(`API key: ${emulator.apiKey}`);
  lines.push("READY");
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`emulator failed to start: ${(err as Error)?.message ?? err}\n`);
    process.exit(1);
  });
}
