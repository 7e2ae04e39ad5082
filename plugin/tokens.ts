/**
 * The package's name and the type tokens the plugin serves: plain strings, so that whatever needs one (the
 * schema, the component, the front door's routing) does not load the code behind the type.
 */

/** The Pulumi package name: resource types are `remote-browser:index:<Type>`. */
export const PACKAGE_NAME = "remote-browser";

export const typeToken = (name: string) => `${PACKAGE_NAME}:index:${name}`;

/** The native resource's type token in the plugin's schema. */
export const BROWSER_SESSION = typeToken("BrowserSession");

/** The component's type token (the schema analyzer derives the same from its class, see packageSchema.ts). */
export const REVIEW_SESSIONS = typeToken("ReviewSessions");
