/**
 * What a Pulumi program imports: `BrowserSession` and the data sources `getImages`, `getLocations`,
 * `getUsage` and `getSessions`, each with its `...Output` form; and `reviewProgram`, the review environment
 * of one pull request that the review-sessions workflows run.
 *
 * @packageDocumentation
 * @module pulumi-remote-browser
 */
import { RemoteBrowserError, isRemoteBrowserError, type ErrorCode } from "../client/errors";
export { BrowserSession } from "./browserSession";
export type { BrowserSessionArgs, ShareLanguage } from "./browserSession";
export { getImages, getImagesOutput, getLocations, getLocationsOutput, getSessions, getSessionsOutput, getUsage, getUsageOutput } from "./functions";
export type { FunctionOptions, FunctionOutputOptions } from "./functions";
export { reviewProgram } from "./reviewProgram";
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
  RemoteBrowserError,
  SessionKeptError,
  StaleIdempotencyKeyError,
  StatusUnreadableError,
  ValidationError,
  isRemoteBrowserError,
} from "../client/errors";
export type { ErrorCode } from "../client/errors";
export { CONFIG_NAMESPACE, DEFAULT_BASE_URL, ENV_API_KEY, ENV_BASE_URL } from "../core/config";

/**
 * The codes of the provider's own decisions: those of the second error family of earlier releases, which
 * kept them apart from the client's. They stay a list here only for the deprecated names below.
 */
const PROVIDER_CODES = [
  "configuration",
  "key_refused",
  "validation",
  "stale_idempotency_key",
  "idempotency_keys_exhausted",
  "not_running_in_time",
  "preparation_failed",
  "ended_while_starting",
  "location_not_applied",
  "status_unreadable",
  "kept_in_stack",
  "engine_gone",
  "cancelled",
  "account_mismatch",
  "owner_unproven",
  "import_failed",
] as const satisfies readonly ErrorCode[];

/** @deprecated Use {@link ErrorCode}: one union holds the codes of every error the package throws. */
export type ProviderErrorCode = (typeof PROVIDER_CODES)[number];

/**
 * @deprecated Use {@link RemoteBrowserError}, the base class of every error the package throws (this is
 * that class under its earlier name: `instanceof ProviderError` now holds for the client's errors too).
 */
export const ProviderError = RemoteBrowserError;
/** @deprecated Use {@link RemoteBrowserError}. */
export type ProviderError = RemoteBrowserError;

/**
 * True for an error whose code is one of the provider's own decisions ({@link ProviderErrorCode}), of any
 * copy of the package.
 *
 * @deprecated Use {@link isRemoteBrowserError}, and the `code` or `instanceof` a member class (`ConfigError`, ...).
 */
export function isProviderError(err: unknown): err is RemoteBrowserError & { code: ProviderErrorCode } {
  return isRemoteBrowserError(err) && (PROVIDER_CODES as readonly string[]).includes(err.code);
}
