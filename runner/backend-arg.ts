import { credentialsOf } from "./redact";
import { UsageError } from "./usage";

/**
 * The backend a runner command is given: `--backend <url>` on the command line, or `--backend-env <VAR>`, the
 * URL in an environment variable. A URL with a password (`postgres://u:pw@host/db`, `…?password=…`) is
 * refused on the command line, where any local user can read it (/proc/<pid>/cmdline) and shell history
 * keeps it, as `--secret key=value` is.
 */
export interface BackendArg {
  url?: string;
  /** How advice printed for the user names this backend: never by a value that holds a password. */
  shown?: string;
}

export function backendArg(values: { backend?: string; "backend-env"?: string }, env: NodeJS.ProcessEnv = process.env): BackendArg {
  const { backend, "backend-env": variable } = values;
  if (backend !== undefined && variable !== undefined) throw new UsageError("--backend and --backend-env name the backend twice; give one");
  if (variable !== undefined) {
    const url = env[variable];
    if (!url) throw new UsageError(`--backend-env ${variable}: the environment variable ${variable} is not set or empty`);
    return { url, shown: `--backend-env ${variable}` };
  }
  if (backend === undefined) return {};
  if (credentialsOf(backend).length > 0) {
    throw new UsageError(
      "--backend <url> carries a password on the command line, where any local user can read it (and shell history keeps it); " +
        "put the URL in an environment variable instead and name it: --backend-env PULUMI_BACKEND_URL " +
        "(e.g. a CI secret in the job's environment)",
    );
  }
  return { url: backend, shown: `--backend ${backend}` };
}
