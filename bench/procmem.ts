import * as fs from "node:fs";

/**
 * Samples the resident memory of the dynamic provider processes started below this process (the
 * engine's `node .../cmd/dynamic-provider` children) every `intervalMs`, from /proc (Linux).
 */
export interface MemoryPeak {
  /** Processes whose command line names the dynamic provider. */
  processes: number;
  /** Largest VmRSS seen in a sample, MiB. */
  sampledPeakMiB: number;
  /** Largest VmHWM (the kernel's own peak RSS) read while the process lived, MiB. */
  hwmPeakMiB: number;
  samples: number;
}

export class ProviderMemorySampler {
  private timer?: NodeJS.Timeout;
  private readonly rssKiB = new Map<number, number>();
  private readonly hwmKiB = new Map<number, number>();
  /** Pids already looked at and found not to be a provider, with the command line they had then. */
  private readonly skipped = new Map<number, string>();
  private samples = 0;

  constructor(
    private readonly rootPid = process.pid,
    private readonly intervalMs = 100,
  ) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
  }

  stop(): MemoryPeak {
    if (this.timer) clearInterval(this.timer);
    this.tick();
    const kib = (m: Map<number, number>) => Math.max(0, ...m.values()) / 1024;
    return { processes: this.rssKiB.size, sampledPeakMiB: kib(this.rssKiB), hwmPeakMiB: kib(this.hwmKiB), samples: this.samples };
  }

  private tick(): void {
    this.samples++;
    let names: string[];
    try {
      names = fs.readdirSync("/proc");
    } catch {
      return; // no /proc: not Linux
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (!this.rssKiB.has(pid)) {
        const cmd = read(`/proc/${pid}/cmdline`);
        if (cmd === undefined) continue;
        // A process seen between fork and exec still shows its parent's command line: look again
        // whenever the command line has changed.
        if (this.skipped.get(pid) === cmd) continue;
        if (!isProvider(cmd) || !this.descends(pid)) {
          this.skipped.set(pid, cmd);
          continue;
        }
      }
      const status = read(`/proc/${pid}/status`);
      if (status === undefined) continue;
      const rss = field(status, "VmRSS");
      const hwm = field(status, "VmHWM");
      if (rss !== undefined) this.rssKiB.set(pid, Math.max(this.rssKiB.get(pid) ?? 0, rss));
      if (hwm !== undefined) this.hwmKiB.set(pid, Math.max(this.hwmKiB.get(pid) ?? 0, hwm));
    }
  }

  private descends(pid: number): boolean {
    for (let p = pid, hops = 0; p > 1 && hops < 16; hops++) {
      const stat = read(`/proc/${p}/stat`);
      if (stat === undefined) return false;
      p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (p === this.rootPid) return true;
    }
    return false;
  }
}

/**
 * `node <...>/@pulumi/pulumi/cmd/dynamic-provider/index.js <engine address>`; not the shell script that
 * starts it, nor that script's `node -e "require.resolve('.../dynamic-provider')"`.
 */
function isProvider(cmdline: string): boolean {
  const [exe = "", script = ""] = cmdline.split("\0");
  return /(^|\/)node$/.test(exe) && /cmd\/dynamic-provider(\/index\.js)?$/.test(script);
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function field(status: string, key: string): number | undefined {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
  return m ? Number(m[1]) : undefined;
}
