/**
 * The type token the dynamic provider host gives a dynamic resource, `pulumi-nodejs:dynamic/<module>:<type>`
 * (`pulumi.dynamic.Resource` builds it from the module and type it is given). BrowserSession's is in the
 * state of every stack the SDK's resource wrote, and the plugin's component aliases it to move such a
 * session over in place.
 */
export const DYNAMIC_SESSION = { module: "remote-browser", type: "BrowserSession" } as const;

export const DYNAMIC_SESSION_TYPE = `pulumi-nodejs:dynamic/${DYNAMIC_SESSION.module}:${DYNAMIC_SESSION.type}` as const;
