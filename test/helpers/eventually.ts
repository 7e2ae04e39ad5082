/**
 * Polls `check` every few milliseconds until it returns a truthy value (for work the emulator finishes later).
 * The bound is a hang guard, not a goal: it returns as soon as the condition holds, and a machine loaded
 * by the e2e files beside it must not fail it.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 20_000, intervalMs = 5): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
