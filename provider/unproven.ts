import { OwnerUnprovenError } from "./errors";

/**
 * The service does not know a session, and its record proves no owner: it may have ended, or belong to
 * another account (whose key answers "unknown" alike) and run on, billed. Dropping it could lose a running
 * session, so it stays in the stack until the user says which.
 */
export function unprovenOwner(vmId: string, recorded: unknown, doing: string): OwnerUnprovenError {
  const record =
    recorded === undefined || recorded === null
      ? "its state records no owner fingerprint (it was written by release 0.1.0)"
      : `its state records only the older owner fingerprint ${String(recorded)}, which accounts whose contact addresses differ only in case share`;
  return new OwnerUnprovenError(
    `${doing} session ${vmId}: the service does not know it under the configured key, and ${record}, so nothing shows that the ` +
      "configured key's account made it: it may have ended, or belong to another account and still run. It stays in the stack. " +
      "Either set remote-browser:apiKey (or REMOTE_BROWSER_API_KEY) and remote-browser:baseUrl to those of the account and service " +
      "that made it and run again, or, if you know the session has ended, remove it from the stack with " +
      "`pulumi state delete <urn>` (`pulumi stack --show-urns` lists the URNs).",
    { vmId },
  );
}
