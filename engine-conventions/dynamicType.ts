/**
 * The type token the dynamic provider host gives a dynamic resource, `pulumi-nodejs:dynamic/<module>:<type>`
 * (`pulumi.dynamic.Resource` builds it from the module and type it is given). BrowserSession's is in the
 * state of every stack the SDK's resource wrote, and the plugin's component aliases it to move such a
 * session over in place.
 */
export const DYNAMIC_SESSION = { module: "remote-browser", type: "BrowserSession" } as const;

/** What every dynamic resource's type starts with; the oldest states carry the generic `pulumi-nodejs:dynamic:Resource`. */
export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic";

export const DYNAMIC_SESSION_TYPE = `${DYNAMIC_TYPE_PREFIX}/${DYNAMIC_SESSION.module}:${DYNAMIC_SESSION.type}` as const;
