import { execFile, execFileSync } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";

/** A PostgreSQL server on loopback for a shared Pulumi backend, from the project's script. */
export interface Postgres {
  url: string;
  /** Runs a query with psql and returns its rows, one string per row. */
  query(sql: string): string[];
  stop(): Promise<void>;
}

const script = path.resolve(__dirname, "..", "..", "scripts", "postgres.sh");
// Starting and stopping take seconds, and longer on a loaded machine: not in a call that blocks the worker.
const run = promisify(execFile);

export async function startPostgres(): Promise<Postgres> {
  const { stdout } = await run("bash", [script, "start"], { encoding: "utf8" });
  const url = stdout.trim();
  return {
    url,
    query: (sql) =>
      execFileSync("psql", [url, "-At", "-c", sql], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean),
    stop: async () => {
      // The server knows its own folder; the script removes exactly that.
      const dataDir = (await run("psql", [url, "-At", "-c", "show data_directory"], { encoding: "utf8" })).stdout.trim();
      await run("bash", [script, "stop", path.dirname(dataDir)]);
    },
  };
}
