/**
 * Token bucket per key: a burst of up to `rate` requests, refilled at `rate` per second.
 * The API does not publish its thresholds, so the rate is a setting.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly rate: () => number) {}

  /** Takes a token; returns the whole seconds to wait when none is left, or 0 when allowed. */
  take(key: string, now: number = Date.now()): number {
    const rate = this.rate();
    if (rate <= 0) return 0;
    const bucket = this.buckets.get(key) ?? { tokens: rate, at: now };
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }

  clear(): void {
    this.buckets.clear();
  }
}
