import { execFileSync } from "node:child_process";
import * as path from "node:path";

/** A PostgreSQL server on loopback for a shared Pulumi backend, from the project's script. */
export interface Postgres {
  url: string;
  /** Runs a query with psql and returns its rows, one string per row. */
  query(sql: string): string[];
  stop(): void;
}

const script = path.resolve(__dirname, "..", "..", "scripts", "postgres.sh");

export function startPostgres(): Postgres {
  const result = execFileSync("bash", [script, "start"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const url = result.trim();
  return {
    url,
    query: (sql) =>
      execFileSync("psql", [url, "-At", "-c", sql], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean),
    stop: () => {
      // The server knows its own folder; the script removes exactly that.
      const dataDir = execFileSync("psql", [url, "-At", "-c", "show data_directory"], { encoding: "utf8" }).trim();
      execFileSync("bash", [script, "stop", path.dirname(dataDir)], { stdio: "ignore" });
    },
  };
}
