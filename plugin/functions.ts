import type { Failure } from "../core/declaration";
import type { ProviderContext } from "../core/context";
import type { z } from "zod";
import { getSessionsArgsSchema, imagesResult, locationsResult, sessionsResult, usageResult, type GetSessionsArgs } from "../core/dataSources";
import { withoutBookkeeping } from "../engine-conventions/wire";

/**
 * The data sources served by the plugin (`fn::invoke` in YAML, the generated SDKs' functions). Each
 * returns the shape the TypeScript function of the same name returns, from the same code, with the
 * provider instance's settings: an explicit provider reads its own account's usage.
 */
interface NativeFunction {
  doc: string;
  /** The arguments it takes; a function without takes none. */
  args?: z.ZodType;
  run: (ctx: ProviderContext, args: never) => Promise<unknown>;
}

export const FUNCTIONS: Record<string, NativeFunction> = {
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
  "remote-browser:index:getSessions": {
    doc:
      "The account's sessions of the last month, newest first, as the service lists them: every session, not only this stack's. " +
      "Ids are masked by the service (`maskedId`): enough to tell sessions apart and to match them against vmIds that stacks " +
      "recorded, never enough to end one. Filters: `states`, `minAgeMinutes`, `maxAgeMinutes`.",
    args: getSessionsArgsSchema,
    run: (ctx, args: GetSessionsArgs) => sessionsResult(ctx.api(), args),
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
  const given = withoutBookkeeping(args);
  if (!fn.args) {
    const extra = Object.keys(given);
    if (extra.length > 0) return { failures: extra.map((property) => ({ property, reason: `${token.split(":")[2]} takes no arguments` })) };
    return { outputs: await fn.run(ctx, undefined as never), failures: [] };
  }
  const parsed = fn.args.safeParse(given);
  if (!parsed.success) {
    const name = token.split(":")[2];
    return {
      failures: parsed.error.issues.flatMap((i) =>
        i.code === "unrecognized_keys"
          ? i.keys.map((property) => ({ property, reason: `${name} takes no argument ${property}` }))
          : [{ property: String(i.path[0] ?? ""), reason: `${i.path.join(".")}: ${i.message}` }],
      ),
    };
  }
  return { outputs: await fn.run(ctx, parsed.data as never), failures: [] };
}
