import * as pulumi from "@pulumi/pulumi";
import { CONFIG_NAMESPACE, SECRET_SETTINGS } from "../provider/config";

/*
 * The credentials among the settings (SECRET_SETTINGS) are checked here, by the program: the dynamic
 * provider's `configure` receives the config with every secret already unwrapped (`@pulumi/pulumi`'s
 * dynamic provider host unwraps them before calling it, and answers the engine that it does not accept
 * secrets), so a plain value and a secret one look the same there. The program's runtime knows which keys
 * are secret (`pulumi.runtime.isConfigSecret`).
 */

let checked = false;

/** Warns once per program run for each credential set as plain (non-secret) stack config. */
export function warnAboutPlainSecrets(): void {
  if (checked) return;
  checked = true;
  // isConfigSecret came with @pulumi/pulumi 3.x releases later than some the package accepts.
  const isSecret = (pulumi.runtime as { isConfigSecret?: (key: string) => boolean }).isConfigSecret;
  if (typeof isSecret !== "function") return;
  for (const setting of SECRET_SETTINGS) {
    const key = `${CONFIG_NAMESPACE}:${setting}`;
    // runtime.getConfig, not Config.get: it reads a secret without a warning of its own.
    if (pulumi.runtime.getConfig(key) === undefined || isSecret(key)) continue;
    void pulumi.log.warn(
      `${key} is set as plain (non-secret) stack config, so it is stored in clear text in the stack's config ` +
        `file and state. Store it as a secret: \`pulumi config set --secret ${key}\` (it reads the value from ` +
        "standard input), or pass it in the environment instead.",
    );
  }
}

/** For tests: check again at the next call. */
export function resetPlainSecretsCheck(): void {
  checked = false;
}
