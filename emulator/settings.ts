/** Tunables that may change while the emulator runs (through the control surface). */
export interface Settings {
  /** Preparation time of a session, ms. */
  prepMs: number;
  /** Uniform jitter (+/-) added to prepMs; 0 disables. */
  prepJitterMs: number;
  /** Time a session spends in `stopping` before it is `deleted`, ms. */
  stopMs: number;
  /** Residential data a running residential session uses per second. */
  residentialBytesPerSecond: number;
  /** Requests per second per key; 0 = no rate limit. */
  rateLimit: number;
  /** Largest accepted request body. */
  maxBodyBytes: number;
}

export const DEFAULT_PREP_MS = 1500;
export const DEFAULT_STOP_MS = 200;
export const DEFAULT_RESIDENTIAL_BYTES_PER_SECOND = 50 * 1024;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
