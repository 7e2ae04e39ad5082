import * as pulumi from "@pulumi/pulumi";
import { CONFIG_NAMESPACE, ConfigError, ENV_BASE_URL, baseUrlCredentials, isSetting, misspeltSettingOf, notASettingWarning, plainCredentialWarning, secretSettingOf } from "../core/config";

/*
 * The credentials among the settings (SECRET_SETTINGS) are checked here, by the program: the dynamic
 * provider's `configure` receives the config with every secret already unwrapped (`@pulumi/pulumi`'s
 * dynamic provider host unwraps them before calling it, and answers the engine that it does not accept
 * secrets), so a plain value and a secret one look the same there. The program's runtime knows which keys
 * are secret (`pulumi.runtime.isConfigSecret`).
 */

let checked = false;

/** Warns once per program run for each credential set as plain (non-secret) stack config, in any spelling, and each unknown key of the namespace. */
export function warnAboutPlainSecrets(): void {
  refuseCredentialsInBaseUrl();
  if (checked) return;
  checked = true;
  // isConfigSecret came with @pulumi/pulumi 3.x releases later than some the package accepts.
  const isSecret = (pulumi.runtime as { isConfigSecret?: (key: string) => boolean }).isConfigSecret;
  if (typeof isSecret !== "function") return;
  const all = pulumi.runtime.allConfig();
  for (const key of Object.keys(all).sort()) {
    const [namespace, ...rest] = key.split(":");
    const meant = misspeltSettingOf(key);
    if (namespace !== CONFIG_NAMESPACE && meant) {
      // Another namespace to Pulumi: the provider never sees it, and a key there seems simply missing.
      void pulumi.log.warn(`${key} is not read by the remote-browser provider, which reads ${meant}: set it under that name (and \`pulumi config rm ${key}\`)`);
      continue;
    }
    if (namespace !== CONFIG_NAMESPACE) continue;
    const name = rest.join(":");
    const credential = secretSettingOf(key);
    if (credential && !isSecret(key)) {
      // A misspelling is ignored by the provider, but its value sits in clear text all the same.
      void pulumi.log.warn(plainCredentialWarning(key));
    } else if (!isSetting(name)) {
      void pulumi.log.warn(notASettingWarning(key));
    }
  }
}

/**
 * A password or key in the service's address, refused before the program registers its first resource: the engine
 * records the stack's whole config as the inputs of the program's default provider, so the password would be
 * in the state, its backups and every checkpoint of the history before the provider could refuse it. The
 * address is never repeated.
 */
export function refuseCredentialsInBaseUrl(): void {
  const key = `${CONFIG_NAMESPACE}:baseUrl`;
  const fromConfig = baseUrlCredentials(pulumi.runtime.getConfig(key));
  const credentials = fromConfig ?? baseUrlCredentials(process.env[ENV_BASE_URL]);
  if (!credentials) return;
  throw new ConfigError(
    `${fromConfig ? key : ENV_BASE_URL} carries ${credentials}: the key goes in ${CONFIG_NAMESPACE}:apiKey (as a secret), ` +
      `never in the address. Remove them from the URL${fromConfig ? ` (\`pulumi config set ${key} <address without them>\`)` : ""}, ` +
      "and change that password: it may already be in a config file or a log. Refused before this provider registered anything.",
    { property: "baseUrl" },
  );
}

/** For tests: check again at the next call. */
export function resetPlainSecretsCheck(): void {
  checked = false;
}
