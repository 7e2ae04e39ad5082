import * as pulumi from "@pulumi/pulumi";
import type { RemoteBrowserClient } from "../client";
import { CONFIG_NAMESPACE, type ProviderConfig, loadConfig } from "../core/config";
import { warnAboutPlainSecrets } from "./configWarnings";
import type { GetImagesResult, GetLocationsResult, GetSessionsArgs, GetSessionsResult, GetUsageResult } from "../core/dataSources";

/**
 * Options of the data-source functions, in the shape of Pulumi's `InvokeOptions`. All optional.
 *
 * The functions of this package call the service from the program's own process, not through a provider
 * the engine runs: there is no provider resource to pass (`provider`, `version` and `pluginDownloadURL`
 * do not apply; the native SDK, `@remote-browser/pulumi`, has them), and the account is the stack's
 * `remote-browser` settings, as for `BrowserSession`.
 */
export interface FunctionOptions {
  /** Overrides `remote-browser:baseUrl` / REMOTE_BROWSER_BASE_URL for this call. */
  baseUrl?: string;
  /**
   * Accepted as Pulumi's functions accept it, so that a component can pass `{ parent: this }`; a parent
   * chooses a provider for an engine invoke, and these functions use none.
   */
  parent?: pulumi.Resource;
  /** Accepted as Pulumi's functions accept it; these functions always answer asynchronously. */
  async?: boolean;
}

/** Options of the `...Output` forms: Pulumi's `InvokeOutputOptions`, as far as they apply here. */
export interface FunctionOutputOptions extends Omit<FunctionOptions, "baseUrl"> {
  /** Overrides `remote-browser:baseUrl` / REMOTE_BROWSER_BASE_URL for this call. */
  baseUrl?: pulumi.Input<string>;
  /**
   * Resources to wait for: the call is made once each is created or updated (a component: every resource
   * under it), e.g. the usage read after the stack's sessions started. While one of them is still to be
   * created in a preview, the result is unknown, as with Pulumi's own functions.
   */
  dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]> | pulumi.Input<pulumi.Resource>;
}

function programConfig(opts?: FunctionOptions): ProviderConfig {
  warnAboutPlainSecrets();
  // runtime.getConfig reads secrets without the plaintext warning of Config.get; the key never leaves this call.
  // The options' baseUrl is read as the config's would be, so that the loader sees it.
  return loadConfig((key) => (key === "baseUrl" && opts?.baseUrl) || pulumi.runtime.getConfig(`${CONFIG_NAMESPACE}:${key}`));
}

/**
 * The client and the data sources' reading of its answers load at the first call: most programs call
 * none, and these (undici, zod and every schema) were a third of every program's start.
 */
const dataSources = () => import("../core/dataSources");

async function withClient<T>(opts: FunctionOptions | undefined, fn: (c: RemoteBrowserClient, cfg: ProviderConfig) => Promise<T>): Promise<T> {
  const cfg = programConfig(opts);
  const { clientForConfig } = await import("../core/context");
  const client = clientForConfig(cfg);
  try {
    return await fn(client, cfg);
  } finally {
    await client.close();
  }
}

/** The service's browser images. Needs no API key. */
export async function getImages(opts?: FunctionOptions): Promise<GetImagesResult> {
  const { imagesResult } = await dataSources();
  return withClient(opts, async (c) => imagesResult(await c.images()));
}

/** The exit locations (countries with their cities) and the residential descriptor. Needs no API key. */
export async function getLocations(opts?: FunctionOptions): Promise<GetLocationsResult> {
  const { locationsResult } = await dataSources();
  return withClient(opts, async (c) => locationsResult(await c.images()));
}

/** The account's session and residential-data usage, in total and per subscription. */
export async function getUsage(opts?: FunctionOptions): Promise<GetUsageResult> {
  const { usageResult } = await dataSources();
  return withClient(opts, (c, cfg) => usageResult(c, cfg.apiVersion));
}

/**
 * The account's sessions of the last month, newest first, as the service lists them: every session, not
 * only this stack's. Ids are masked by the service (`maskedId`): enough to tell sessions apart and to match
 * them against vmIds that stacks recorded, never enough to end one. Filters: `states`, `minAgeMinutes`,
 * `maxAgeMinutes`.
 */
export async function getSessions(args?: GetSessionsArgs, opts?: FunctionOptions): Promise<GetSessionsResult> {
  const { parseSessionsArgs, sessionsResult } = await dataSources();
  // Bad filters are refused before the settings are read.
  const filters = parseSessionsArgs(args);
  return withClient(opts, (c) => sessionsResult(c, filters));
}

/**
 * What a resource in `dependsOn` is done at: a custom resource's `id` (known once it is created); a remote
 * component's `urn` (its construction returns after its children's); a local component, each of its
 * children's. The children are `Resource.__childResources`, which Pulumi's own invokes walk the same way
 * (runtime/dependsOn.ts) and which no public API exposes.
 */
function doneSignals(resource: pulumi.Resource, seen = new Set<pulumi.Resource>()): pulumi.Output<unknown>[] {
  if (seen.has(resource)) return [];
  seen.add(resource);
  if (pulumi.CustomResource.isInstance(resource)) return [resource.id];
  const internal = resource as pulumi.Resource & { __remote?: boolean; __childResources?: Set<pulumi.Resource> };
  if (internal.__remote || !pulumi.ComponentResource.isInstance(resource)) return [resource.urn];
  return [resource.urn, ...[...(internal.__childResources ?? [])].flatMap((child) => doneSignals(child, seen))];
}

/** Calls `call` with the plain options once every resource of `dependsOn` is done (see {@link doneSignals}). */
function afterDependencies<T>(opts: pulumi.Input<FunctionOutputOptions> | undefined, call: (o: FunctionOptions) => Promise<T>): pulumi.Output<T> {
  const options = pulumi.output(opts).apply((o) => (o ?? {}) as FunctionOutputOptions);
  // The resources are taken as late as this, so that a component's children registered by then count.
  const ready = options.apply((o) =>
    o.dependsOn === undefined
      ? []
      : pulumi.output(o.dependsOn).apply((deps) => pulumi.all(([] as pulumi.Resource[]).concat(deps as pulumi.Resource | pulumi.Resource[]).flatMap((d) => doneSignals(d)))),
  );
  return ready.apply(() => options).apply(({ dependsOn: _, ...plain }) => call(plain as FunctionOptions));
}

/** {@link getImages} as an Output: takes its options as Inputs, and `dependsOn`. */
export function getImagesOutput(opts?: pulumi.Input<FunctionOutputOptions>): pulumi.Output<GetImagesResult> {
  return afterDependencies(opts, getImages);
}
/** {@link getLocations} as an Output: takes its options as Inputs, and `dependsOn`. */
export function getLocationsOutput(opts?: pulumi.Input<FunctionOutputOptions>): pulumi.Output<GetLocationsResult> {
  return afterDependencies(opts, getLocations);
}
/** {@link getUsage} as an Output: takes its options as Inputs, and `dependsOn`, e.g. to read the usage once the stack's sessions started. */
export function getUsageOutput(opts?: pulumi.Input<FunctionOutputOptions>): pulumi.Output<GetUsageResult> {
  return afterDependencies(opts, getUsage);
}
/** {@link getSessions} as an Output: takes its filters and options as Inputs, and `dependsOn`. */
export function getSessionsOutput(args?: pulumi.Input<GetSessionsArgs>, opts?: pulumi.Input<FunctionOutputOptions>): pulumi.Output<GetSessionsResult> {
  return pulumi.output(args).apply((a) => afterDependencies(opts, (o) => getSessions(a as GetSessionsArgs | undefined, o)));
}
