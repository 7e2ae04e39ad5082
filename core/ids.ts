import { isMasked } from "../client";
import { ValidationError } from "./errors";

/**
 * A session id as the engine hands it over (`pulumi import`, a `get`, a state edited by hand): bounded
 * before it reaches a request or a message. Real ids are a short prefix and a unique part; an id this long
 * is a mistake, and repeating megabytes of it in an error would reset the engine's stream.
 */
export const MAX_SESSION_ID_LENGTH = 256;

/**
 * Refuses an empty, overlong or masked id before any call, without repeating a long one; `doing` says what
 * the user asked for. A masked id -- as the service's list of the account's sessions shows it (getSessions,
 * the audit) -- hides part of the id, and the service addresses a session only by its whole id.
 */
export function checkSessionId(id: string, doing: string): void {
  if (id.length === 0) throw new ValidationError(`${doing}: the session id is empty`);
  if (id.length > MAX_SESSION_ID_LENGTH) {
    throw new ValidationError(`${doing}: the session id is ${id.length} characters long, not a session id (at most ${MAX_SESSION_ID_LENGTH}); check the id given`);
  }
  if (isMasked(id)) {
    throw new ValidationError(
      `${doing}: "${id}" is a masked id: the service's list of the account's sessions (getSessions, the audit) hides part ` +
        "of each id behind mask characters (*, • or …), and a masked id cannot address a session. Use the session's whole " +
        "id, as the create returned it (a stack's vmId output, or whatever started the session)",
    );
  }
}
