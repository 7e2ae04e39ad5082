/**
 * What a Pulumi program imports: `BrowserSession` and the data sources `getImages`, `getLocations`,
 * `getUsage` and `getSessions`, each with its `...Output` form.
 *
 * @packageDocumentation
 * @module pulumi-remote-browser
 */
export { BrowserSession } from "./browserSession";
export type { BrowserSessionArgs, ShareLanguage } from "./browserSession";
export {
  getImages,
  getImagesOutput,
  getLocations,
  getLocationsOutput,
  getSessions,
  getSessionsOutput,
  getUsage,
  getUsageOutput,
} from "./functions";
export type { FunctionOptions, FunctionOutputOptions } from "./functions";
export type {
  City,
  CreditUsage,
  GetImagesResult,
  GetLocationsResult,
  GetSessionsArgs,
  GetSessionsResult,
  GetUsageResult,
  ListedSession,
  Image,
  Location,
  UsageMeterFields,
  UsagePool,
} from "../core/dataSources";
export { isRemoteBrowserError } from "../client/errors";
export {
  AccountMismatchError,
  CancelledError,
  ConfigError,
  EndedWhileStartingError,
  EngineGoneError,
  IdempotencyKeysExhaustedError,
  ImportError,
  KeyRefusedError,
  LocationNotAppliedError,
  NotRunningInTimeError,
  OwnerUnprovenError,
  PreparationFailedError,
  ProviderError,
  SessionKeptError,
  StaleIdempotencyKeyError,
  StatusUnreadableError,
  ValidationError,
  isProviderError,
} from "../core/errors";
export type { ProviderErrorCode } from "../core/errors";
export type { ErrorCode, RemoteBrowserError } from "../client/errors";
export { CONFIG_NAMESPACE, DEFAULT_BASE_URL, ENV_API_KEY, ENV_BASE_URL } from "../core/config";
