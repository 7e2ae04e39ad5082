import type { Failure } from "../provider/check";
import type { ProviderContext } from "../provider/context";
import { imagesResult, locationsResult, usageResult } from "../provider/dataSources";

/**
 * The data sources served by the plugin (`fn::invoke` in YAML, the generated SDKs' functions). Each
 * returns the shape the TypeScript function of the same name returns, from the same code, with the
 * provider instance's settings: an explicit provider reads its own account's usage.
 */
export const FUNCTIONS: Record<string, { doc: string; run: (ctx: ProviderContext) => Promise<unknown> }> = {
  "remote-browser:index:getImages": {
    doc: "The service's browser images. Needs no API key.",
    run: async (ctx) => imagesResult(await ctx.api().images()),
  },
  "remote-browser:index:getLocations": {
    doc: "The exit locations (countries with their cities) and the residential descriptor. Needs no API key.",
    run: async (ctx) => locationsResult(await ctx.api().images()),
  },
  "remote-browser:index:getUsage": {
    doc: "The account's session and residential-data usage, in total and per subscription.",
    run: (ctx) => usageResult(ctx.api(), ctx.cfg().apiVersion),
  },
};

export async function invoke(ctx: ProviderContext, token: string, args: Record<string, unknown>): Promise<{ outputs?: unknown; failures: Failure[] }> {
  // An own property: `__proto__` or `constructor` are no functions of the plugin. The token is not repeated
  // when it is long: it comes from the program as written.
  const fn = Object.prototype.hasOwnProperty.call(FUNCTIONS, token) ? FUNCTIONS[token] : undefined;
  if (!fn) {
    const shown = token.length <= 128 ? token : `(a token of ${token.length} characters)`;
    throw new Error(`unknown function ${shown} (the remote-browser plugin serves ${Object.keys(FUNCTIONS).join(", ")})`);
  }
  const extra = Object.keys(args).filter((k) => !k.startsWith("__"));
  if (extra.length > 0) return { failures: extra.map((property) => ({ property, reason: `${token.split(":")[2]} takes no arguments` })) };
  return { outputs: await fn.run(ctx), failures: [] };
}
