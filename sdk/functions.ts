import * as pulumi from "@pulumi/pulumi";
import type { RemoteBrowserClient } from "../client";
import { CONFIG_NAMESPACE, ProviderConfig, loadConfig } from "../core/config";
import { warnAboutPlainSecrets } from "./configWarnings";
import type { GetImagesResult, GetLocationsResult, GetSessionsArgs, GetSessionsResult, GetUsageResult } from "../core/dataSources";

/** Options of the data-source functions. All optional. */
export interface FunctionOptions {
  /** Overrides `remote-browser:baseUrl` / REMOTE_BROWSER_BASE_URL for this call. */
  baseUrl?: string;
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
  const { clientForConfig } = await import("../core/configuredClient");
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

/** {@link getImages} as an Output: takes its options as Inputs. */
export function getImagesOutput(opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetImagesResult> {
  return pulumi.output(opts).apply((o) => getImages(o));
}
/** {@link getLocations} as an Output: takes its options as Inputs. */
export function getLocationsOutput(opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetLocationsResult> {
  return pulumi.output(opts).apply((o) => getLocations(o));
}
/** {@link getUsage} as an Output: takes its options as Inputs. */
export function getUsageOutput(opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetUsageResult> {
  return pulumi.output(opts).apply((o) => getUsage(o));
}
/** {@link getSessions} as an Output: takes its filters and options as Inputs. */
export function getSessionsOutput(args?: pulumi.Input<GetSessionsArgs>, opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetSessionsResult> {
  return pulumi.all([args, opts]).apply(([a, o]) => getSessions(a as GetSessionsArgs | undefined, o as FunctionOptions | undefined));
}
