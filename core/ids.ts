import { ValidationError } from "./errors";

/**
 * A session id as the engine hands it over (`pulumi import`, a `get`, a state edited by hand): bounded
 * before it reaches a request or a message. Real ids are a short prefix and a unique part; an id this long
 * is a mistake, and repeating megabytes of it in an error would reset the engine's stream.
 */
export const MAX_SESSION_ID_LENGTH = 256;

/** Refuses an empty or overlong id without repeating it; `doing` says what the user asked for. */
export function checkSessionId(id: string, doing: string): void {
  if (id.length === 0) throw new ValidationError(`${doing}: the session id is empty`);
  if (id.length > MAX_SESSION_ID_LENGTH) {
    throw new ValidationError(`${doing}: the session id is ${id.length} characters long, not a session id (at most ${MAX_SESSION_ID_LENGTH}); check the id given`);
  }
}
