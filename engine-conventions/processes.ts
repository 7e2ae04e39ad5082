import { parseEngineAddress } from "./address-probe";

/**
 * How the processes the engine starts are told apart, by the scripts @pulumi/pulumi ships: these paths
 * are the SDK's layout, not its documented API, and are stated here once.
 */

/**
 * The dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`): its launcher runs the folder's
 * `index.js` as resolved (`.../cmd/dynamic-provider/index.js`), and a bare folder path runs it too.
 */
export function isDynamicProviderHost(script: string | undefined): boolean {
  return /[\\/]cmd[\\/]dynamic-provider([\\/]|$)/.test(script ?? "");
}

/** The folder of the `@pulumi/pulumi` whose dynamic provider host `script` is, when it is one. */
export function dynamicProviderSdk(script: string | undefined): string | undefined {
  return isDynamicProviderHost(script) ? script!.replace(/[\\/]cmd[\\/]dynamic-provider([\\/].*)?$/, "") : undefined;
}

/** The Node.js language host's plugin runner (`@pulumi/pulumi/cmd/run-plugin`), which loads a plugin package's entry point. */
export function isRunPlugin(script: string | undefined): boolean {
  return /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]run-plugin[\\/]/.test(script ?? "");
}

/** A resource plugin's executable, by the name the engine looks it up by (`pulumi-resource-<name>`). */
export function isResourcePlugin(script: string | undefined): boolean {
  return /(^|[\\/])pulumi-resource-[^\\/]+$/.test(script ?? "");
}

/** The dynamic provider, or a resource plugin script, given an engine address. */
export function isPluginProcess(argv: string[]): boolean {
  const script = argv[1];
  return (isDynamicProviderHost(script) || isResourcePlugin(script)) && parseEngineAddress(argv[2]) !== undefined;
}
