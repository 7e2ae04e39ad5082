import { SessionKeptError } from "../core/errors";
import { SECRET_OUTPUTS, withoutNulls } from "../core/declaration";

/**
 * A failed create that leaves a session running, as the engine records it: a resource "created but failed
 * to initialise", kept in the state for a later destroy. Both hosts recognise it by the error's shape --
 * the dynamic provider host by an `id` on the error (with `properties` and `reasons`), the plugin's front
 * door by the same three turned into `ErrorResourceInitFailed` (plugin/rpc.ts).
 *
 * The secret outputs (the share link) are left out of what is recorded: the dynamic provider host records
 * a failed create's properties as given, with no way to mark one secret, and a kept session needs nothing
 * but its id and owner for the destroy that ends it. Both fronts record the same, so a session's failed
 * create leaves the same state whichever front served it.
 */
export function asInitFailure(err: unknown, shape: (recorded: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (!(err instanceof SessionKeptError) || !err.outputs || !err.vmId) return err;
  const recorded = Object.fromEntries(Object.entries(err.outputs).filter(([k]) => !(SECRET_OUTPUTS as readonly string[]).includes(k)));
  err.id = err.vmId;
  err.properties = shape(withoutNulls(recorded));
  err.reasons = [err.message];
  return err;
}
