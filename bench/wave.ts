/**
 * The wave: many pull-request stacks at once, each driven from its own process (as separate CI jobs
 * are), on one PostgreSQL backend and one account whose running limit is below their demand, with the
 * capacity wait on. Compared with one stack alone in the same run.
 *
 *   npm run bench -- wave [--stacks 12] [--limit 4] [--prep-ms 2000] [--hold-ms 2000]
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "../emulator";
import type { Emulator } from "../emulator";
import { runRunner } from "./runnerProcess";
import { median, quantile, sec, table } from "./report";

const root = path.resolve(__dirname, "..", "..");
const program = path.join(root, "dist", "bench", "wave-program.js");
const passphrase = randomBytes(24).toString("hex");

interface StackRun {
  name: string;
  upStart: number;
  upEnd: number;
  end: number;
  ok: boolean;
  url: string;
  error?: string;
}

async function pullRequest(emulator: Emulator, backend: string, work: string, name: string, holdMs: number): Promise<StackRun> {
  const workDir = path.join(work, name);
  fs.mkdirSync(workDir, { recursive: true });
  const url = `https://example.com/${name}`;
  const common = [
    "--stack",
    name,
    "--project",
    "wave",
    "--work-dir",
    workDir,
    "--backend",
    backend,
    "--quiet",
    "--config",
    `remote-browser:baseUrl=${emulator.apiBaseUrl}`,
    "--secret-env",
    "remote-browser:apiKey=WAVE_API_KEY",
  ];
  // Secrets through the environment, never the command line; the backend is shared, so it needs a passphrase.
  const env = { WAVE_API_KEY: emulator.apiKey, PULUMI_CONFIG_PASSPHRASE: passphrase };
  const upStart = Date.now();
  const up = await runRunner(["up", "--program", program, ...common, "--config", `url=${url}`, "--config", "waitForCapacitySeconds=900"], workDir, env);
  const upEnd = Date.now();
  if (up.code === 0) await new Promise((r) => setTimeout(r, holdMs)); // the review
  await runRunner(["destroy", ...common], workDir, env);
  await runRunner(["rm", ...common], workDir, env);
  return { name, upStart, upEnd, end: Date.now(), ok: up.code === 0, url, error: up.code === 0 ? undefined : up.out.slice(-500) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stacks: { type: "string", default: "12" },
      limit: { type: "string", default: "4" },
      "prep-ms": { type: "string", default: "2000" },
      "hold-ms": { type: "string", default: "2000" },
    },
  });
  const stacks = Number(values.stacks);
  const limit = Number(values.limit);
  const prepMs = Number(values["prep-ms"]);
  const holdMs = Number(values["hold-ms"]);
  const work = path.join(root, ".work", "bench", "wave");
  fs.rmSync(work, { recursive: true, force: true });
  const backend = execFileSync("bash", [path.join(root, "scripts", "postgres.sh"), "start"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  const emulator = await startEmulator({ prepMs, prepJitterMs: 0, runningLimit: limit });
  let peak = 0;
  const sampler = setInterval(() => {
    const live = emulator.control.sessions().filter((s) => s.status === "starting" || s.status === "running").length;
    peak = Math.max(peak, live);
  }, 50);
  process.stdout.write(
    `load average at the start: ${os
      .loadavg()
      .map((l: number) => l.toFixed(2))
      .join(" ")}\n`,
  );
  try {
    const soloStart = Date.now();
    const solo = await pullRequest(emulator, backend, work, "solo", holdMs);
    const soloWall = Date.now() - soloStart;
    const created = (url: string) => Date.parse(emulator.control.sessions().find((s) => s.url === url)?.created ?? "");
    const soloDelay = created(solo.url) - solo.upStart; // from `up` to the service accepting the create

    const waveStart = Date.now();
    const runs = await Promise.all(Array.from({ length: stacks }, (_, i) => pullRequest(emulator, backend, work, `pr-${i + 1}`, holdMs)));
    const waveWall = Date.now() - waveStart;
    const waits = runs.filter((r) => r.ok).map((r) => Math.max(0, created(r.url) - r.upStart - soloDelay));
    const books = emulator.control.books();
    const rounds = Math.ceil(stacks / limit);

    process.stdout.write(`\nWave of ${stacks} pull-request stacks, running limit ${limit}, preparation ${prepMs} ms, review ${holdMs} ms, PostgreSQL backend\n\n`);
    process.stdout.write(
      table(
        [{ title: "", align: "left" }, { title: "wall s" }, { title: "ratio to one stack" }],
        [
          ["one stack alone (up, review, destroy, rm)", sec(soloWall), "1.00"],
          [`${stacks} stacks at once`, sec(waveWall), (waveWall / soloWall).toFixed(2)],
          [`ideal: ${rounds} rounds of ${limit}`, sec(rounds * soloWall), rounds.toFixed(2)],
        ],
      ) + "\n\n",
    );
    process.stdout.write(
      table(
        [{ title: "", align: "left" }, { title: "value" }],
        [
          ["stacks that got their session", `${runs.filter((r) => r.ok).length} of ${stacks}`],
          ["most sessions running at once (sampled / emulator's books)", `${peak} / ${books.maxRunning} (limit ${limit})`],
          ["sessions started", `${books.started}`],
          ["sessions left running", `${books.neverEnded}`],
          ["creates refused with upgrade, then retried", `${emulator.control.requests().filter((r) => r.operation === "create" && r.status === "upgrade").length}`],
        ],
      ) + "\n\n",
    );
    process.stdout.write(
      "Wait per stack: from its `up` starting to the service accepting its create, less the same for the stack alone\n" +
        "(mostly waiting for a free slot; on a loaded machine it also holds the slower start of 12 engines):\n\n",
    );
    process.stdout.write(
      table(
        [{ title: "min s" }, { title: "p25 s" }, { title: "median s" }, { title: "p75 s" }, { title: "p90 s" }, { title: "max s" }, { title: "stacks that waited" }],
        [
          [
            sec(Math.min(...waits)),
            sec(quantile(waits, 0.25)),
            sec(median(waits)),
            sec(quantile(waits, 0.75)),
            sec(quantile(waits, 0.9)),
            sec(Math.max(...waits)),
            `${waits.filter((w) => w > 1000).length} of ${waits.length}`,
          ],
        ],
      ) + "\n",
    );
    const failed = runs.filter((r) => !r.ok);
    for (const f of failed) process.stdout.write(`\n${f.name} failed:\n${f.error}\n`);
    fs.writeFileSync(path.join(root, ".work", "bench", "wave.json"), JSON.stringify({ stacks, limit, prepMs, holdMs, soloWall, waveWall, peak, books, waits, runs }, null, 2));
  } finally {
    clearInterval(sampler);
    await emulator.close();
    const dataDir = execFileSync("psql", [backend, "-At", "-c", "show data_directory"], { encoding: "utf8" }).trim();
    execFileSync("bash", [path.join(root, "scripts", "postgres.sh"), "stop", path.dirname(dataDir)], { stdio: "ignore" });
  }
}

main().catch((err) => {
  process.stderr.write(`wave benchmark failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
