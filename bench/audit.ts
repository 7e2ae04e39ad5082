/**
 * The account audit at scale: N stacks on one file backend and an account of M live sessions, most of them
 * recorded by the stacks, a few pending creates of killed `up`s and the rest held by none. Prints the
 * audit's wall time (whole run of `pulumi-remote-browser-run audit`, CLI starts included), the service
 * calls it made (from the emulator's request log) and the CLI calls (one `stack ls`, one export a stack).
 *
 *   npm run bench -- audit [--stacks 20] [--sessions 200] [--runs 3]
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "../emulator";
import { engineEnvironment, findPulumiBin } from "../runner/environment";
import { median, sec, table } from "./report";

const root = path.resolve(__dirname, "..", "..");
const runner = path.join(root, "dist", "runner", "cli.js");
const BROWSERS = ["chrome", "firefox", "edge"];

function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, input?: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.stdin.end(input ?? "");
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** A stack's state as the engine writes it: a provider, its sessions, and a pending create or none. */
function deployment(stack: string, vmIds: string[], pendingBrowser?: string): unknown {
  const urn = (type: string, name: string) => `urn:pulumi:${stack}::audit::${type}::${name}`;
  const provider = `${urn("pulumi:providers:remote-browser", "default")}::prov-${stack}`;
  const session = (name: string, browser: string) => ({
    urn: urn("remote-browser:index:BrowserSession", name),
    custom: true,
    type: "remote-browser:index:BrowserSession",
    provider,
    inputs: { browser },
  });
  return {
    version: 3,
    deployment: {
      manifest: { time: new Date().toISOString(), magic: "", version: "v3.248.0" },
      resources: [
        { urn: urn("pulumi:pulumi:Stack", `audit-${stack}`), custom: false, type: "pulumi:pulumi:Stack" },
        { urn: urn("pulumi:providers:remote-browser", "default"), custom: true, id: `prov-${stack}`, type: "pulumi:providers:remote-browser" },
        ...vmIds.map((vmId, i) => ({ ...session(`s${i}`, BROWSERS[i % 3]!), id: vmId, outputs: { vmId, browser: BROWSERS[i % 3] } })),
      ],
      ...(pendingBrowser ? { pending_operations: [{ type: "creating", resource: session("pending", pendingBrowser) }] } : {}),
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { stacks: { type: "string" }, sessions: { type: "string" }, runs: { type: "string" } } });
  const stacks = Number(values.stacks ?? 20);
  const sessions = Number(values.sessions ?? 200);
  const runs = Number(values.runs ?? 3);
  const perStack = Math.floor((sessions * 0.9) / stacks);
  const pendingStacks = Math.min(2, stacks);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-bench-audit-"));
  const emu = await startEmulator({ prepMs: 0 });
  try {
    emu.control.settings({ runningLimit: sessions + 10 });
    const pulumiBin = findPulumiBin();
    const passphrase = randomBytes(24).toString("hex");
    const backendUrl = `file://${path.join(work, "backend")}`;
    fs.mkdirSync(path.join(work, "backend"));
    // `stack init` writes the stack's config file next to a project file.
    fs.writeFileSync(path.join(work, "Pulumi.yaml"), "name: audit\nruntime: nodejs\n");
    const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir: path.join(work, "state"), workDir: root, backendUrl, passphrase }) };
    const seed = (vmId: string, browser: string) => emu.control.seedSession({ vmId, browser, linkId: randomBytes(8).toString("hex") });
    const newId = () => `vm-${randomBytes(12).toString("hex")}`;

    // The stacks, imported as the engine would have written them (a CLI start or two each, four at a time).
    process.stderr.write(`bench audit: preparing ${stacks} stacks of ${perStack} sessions and ${sessions} live sessions...\n`);
    const names = Array.from({ length: stacks }, (_, i) => `pr-${i + 1}`);
    const queue = [...names];
    const prepare = async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        const i = names.indexOf(name);
        const vmIds = Array.from({ length: perStack }, newId);
        vmIds.forEach((id, k) => seed(id, BROWSERS[k % 3]!));
        const file = path.join(work, `${name}.json`);
        fs.writeFileSync(file, JSON.stringify(deployment(name, vmIds, i < pendingStacks ? "brave" : undefined)));
        const fq = `organization/audit/${name}`;
        for (const args of [
          ["stack", "init", fq],
          ["stack", "import", "--file", file, "--stack", fq, "--force"],
        ]) {
          const r = await exec(pulumiBin, [...args, "--non-interactive"], work, env);
          if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")}: ${r.out}`);
        }
        // `stack import` drops pending operations; a killed `up` leaves them in the checkpoint, so put them there.
        if (i < pendingStacks) {
          const checkpoint = path.join(work, "backend", ".pulumi", "stacks", "audit", `${name}.json`);
          const cp = JSON.parse(fs.readFileSync(checkpoint, "utf8"));
          cp.checkpoint.latest.pending_operations = (deployment(name, [], "brave") as { deployment: { pending_operations: unknown } }).deployment.pending_operations;
          fs.writeFileSync(checkpoint, JSON.stringify(cp));
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, prepare));
    // The rest of the account: the pending creates' sessions (brave) and sessions held by none.
    const recorded = perStack * stacks;
    for (let k = 0; recorded + k < sessions; k++) seed(newId(), k < pendingStacks ? "brave" : BROWSERS[k % 3]!);

    const rows: string[][] = [];
    const times: number[] = [];
    let last = "";
    for (let r = 0; r < runs; r++) {
      emu.control.clearRequests();
      const t0 = Date.now();
      const audit = await exec(process.execPath, [runner, "audit", "--orphan-minutes", "0", "--work-dir", path.join(work, "audit")], root, {
        ...env,
        PULUMI_REMOTE_BROWSER_PULUMI: pulumiBin,
        REMOTE_BROWSER_API_KEY: emu.apiKey,
        REMOTE_BROWSER_BASE_URL: emu.apiBaseUrl,
      });
      const wall = Date.now() - t0;
      if (audit.code !== 3) throw new Error(`audit exited ${audit.code}: ${audit.out}`);
      const ops = emu.control.requests().map((q) => q.operation);
      times.push(wall);
      last = audit.out;
      rows.push([
        String(r + 1),
        sec(wall),
        String(ops.length),
        String(ops.filter((o) => o === "list").length),
        String(ops.filter((o) => o === "image").length),
        String(ops.filter((o) => o === "create" || o === "remove").length),
      ]);
    }
    const summary = last.split("\n").find((l) => l.startsWith("running in the account")) ?? "";
    process.stdout.write(`\nAccount audit: ${stacks} stacks (file backend), ${sessions} live sessions\n${summary}\n\n`);
    process.stdout.write(
      `${table(
        [{ title: "run" }, { title: "wall" }, { title: "service calls" }, { title: "list" }, { title: "image" }, { title: "create+remove" }],
        rows,
      )}\n\nmedian wall ${sec(median(times))}; CLI calls per run: 1 stack ls + ${stacks} stack exports (4 at a time)\n`,
    );
  } finally {
    await emu.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
