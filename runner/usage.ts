/** A mistake in how the runner was called: it exits with code 2 and this message, before any engine run. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
