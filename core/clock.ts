/**
 * Time and chance, as the provider sees them: one object, so that a test can replace all three at once
 * (waits of minutes then take no real time, jitter is repeatable).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** A number in [0, 1): jitter of the capacity wait's pauses. */
  random(): number;
}

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
});
