import * as path from "node:path";
import { run } from "../../release/run";

/** A PostgreSQL server on loopback for a shared Pulumi backend, from the project's script. */
export interface Postgres {
  url: string;
  /** Runs a query with psql and returns its rows, one string per row. */
  query(sql: string): Promise<string[]>;
  stop(): Promise<void>;
}

const script = path.resolve(__dirname, "..", "..", "scripts", "postgres.sh");

export async function startPostgres(): Promise<Postgres> {
  const url = (await run("bash", [script, "start"])).trim();
  return {
    url,
    query: async (sql) => (await run("psql", [url, "-At", "-c", sql])).split("\n").filter(Boolean),
    stop: async () => {
      // The server knows its own folder; the script removes exactly that.
      const dataDir = (await run("psql", [url, "-At", "-c", "show data_directory"])).trim();
      await run("bash", [script, "stop", path.dirname(dataDir)]);
    },
  };
}
