/**
 * What an operation tells the user while it runs. The core says what to tell; each front says how it
 * reaches the user (the engine's Log call, see engine-conventions/diagnostics.ts) and hands that in
 * through the context, so that no operation reaches for a channel of its own.
 */

/** Where reports go, by the resource they belong to (`undefined`: the stack as a whole). */
export interface Diagnostics {
  /** A warning the update keeps in its diagnostics. Never rejects. */
  warning(urn: string | undefined, message: string): Promise<void>;
  /** A status line on the resource's row, replaced by the next one and gone when its step ends. Never rejects. */
  status(urn: string | undefined, message: string): Promise<void>;
}

/** The reports of one operation, on its own resource. */
export interface Reporter {
  warning(message: string): Promise<void>;
  status(message: string): Promise<void>;
}

/** Outside any front (a test, a script): warnings on standard error, status lines dropped. */
export const STDERR_DIAGNOSTICS: Diagnostics = {
  warning: async (_urn, message) => void process.stderr.write(`warning: ${message}\n`),
  status: async () => undefined,
};

/** `diagnostics` bound to the resource `urn`. */
export function reporterOn(diagnostics: Diagnostics, urn: string | undefined): Reporter {
  return {
    warning: (message) => diagnostics.warning(urn, message),
    status: (message) => diagnostics.status(urn, message),
  };
}
