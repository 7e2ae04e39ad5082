import type * as pulumi from "@pulumi/pulumi";
// The values from the SDK's own modules rather than its entry point, which loads the whole SDK (the
// Automation API, the TypeScript compiler): the plugin loads this module at its first Construct.
import { all, Output, secret } from "@pulumi/pulumi/output";
import { ComponentResource, CustomResource } from "@pulumi/pulumi/resource";
import { pluginIdentity, BROWSER_SESSION, REVIEW_SESSIONS } from "./identity";
import { ValidationError } from "../core/declaration";
import { SECRET_OUTPUTS } from "../core/declaration";
import { DYNAMIC_SESSION_TYPE } from "../engine-conventions/wire";

/** Viewer language of the share links. */
export const ShareLanguage = {
  /** English */
  En: "en",
  /** German */
  De: "de",
  /** French */
  Fr: "fr",
  /** Spanish */
  Es: "es",
  /** Italian */
  It: "it",
  /** Portuguese */
  Pt: "pt",
  /** Japanese */
  Ja: "ja",
} as const;
export type ShareLanguage = (typeof ShareLanguage)[keyof typeof ShareLanguage];

/**
 * Each output of ReviewSessions is a map, by browser id, of one BrowserSession output: whether it is
 * secret follows from that field's declaration (core/declaration.ts), in the schema as in the outputs.
 */
export const REVIEW_SESSIONS_OUTPUTS = { sessionIds: "vmId", shareUrls: "shareUrl", browserNames: "browserName" } as const;

/**
 * One session as the plugin serves it (`remote-browser:index:BrowserSession`): the engine runs it in the
 * plugin, so the component needs nothing in the program's folder. Its provider is the component's own, the
 * one that constructs it (plugin/provider.ts gives it as the component's provider for the package), so it
 * runs in the same process. The version and download address, as a generated SDK pins its resources, are
 * what the engine goes by where no provider is given: never another release than the component's.
 */
class Session extends CustomResource {
  declare readonly vmId: pulumi.Output<string>;
  declare readonly shareUrl: pulumi.Output<string | undefined>;
  declare readonly browserName: pulumi.Output<string | undefined>;

  constructor(name: string, args: Record<string, pulumi.Input<unknown> | undefined>, opts: pulumi.CustomResourceOptions) {
    const { version, pluginDownloadURL } = pluginIdentity();
    super(
      BROWSER_SESSION,
      name,
      { ...args, vmId: undefined, shareUrl: undefined, browserName: undefined },
      {
        version,
        pluginDownloadURL,
        additionalSecretOutputs: [...SECRET_OUTPUTS],
        // The type the sessions had in the releases where they were dynamic resources: the engine moves such a
        // session to the plugin's own type in place (same id, same link) instead of replacing it, since the
        // plugin's DiffConfig never asks for replacement and its Diff reads the dynamic resource's recorded
        // outputs. A stack without such a session is not affected by the alias.
        aliases: [{ type: DYNAMIC_SESSION_TYPE }],
        ...opts,
      },
    );
  }
}

/** The inputs of a ReviewSessions component. */
export interface ReviewSessionsArgs {
  /** Browser image ids, one session each, e.g. `["chrome", "firefox"]`; each must be an enabled image. Known when the program runs (not an output of another resource). */
  browsers: string[];
  /** First page every session opens, e.g. the pull request's preview URL; at most 10,000 characters. Changing it replaces the sessions. */
  url: pulumi.Input<string>;
  /** Exit location of every session: a country or city code, or `auto`. Needs location access in the plan. */
  country?: pulumi.Input<string>;
  /** Viewer language of the share links. Default `en`. */
  shareLanguage?: pulumi.Input<ShareLanguage>;
  /** http(s) address the viewer opens when someone leaves a session; at most 2,000 characters. */
  callbackUrl?: pulumi.Input<string>;
  /** How long to wait for each session to be running before failing. Default 300. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** When the account's running limit is reached, wait up to this long for a free slot instead of failing. Default 0. */
  waitForCapacitySeconds?: pulumi.Input<number>;
}

/**
 * One remote browser session per requested browser, all opening the same page: the review sessions of a
 * pull request. The share links are secret outputs.
 */
export class ReviewSessions extends ComponentResource {
  /** Session id (`vmId`) of each browser, keyed by browser id. */
  public readonly sessionIds: pulumi.Output<Record<string, string>>;
  /** Secret. Share link of each browser's session, keyed by browser id: whoever has a link can view that session. */
  public readonly shareUrls: pulumi.Output<Record<string, string>>;
  /** Display name of each browser, keyed by browser id. */
  public readonly browserNames: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: ReviewSessionsArgs, opts?: pulumi.ComponentResourceOptions) {
    super(REVIEW_SESSIONS, name, {}, opts);
    const browsers = browserList(name, args?.browsers);
    const sessions = browsers.map((browser) => {
      const session = new Session(
        `${name}-${browser}`,
        {
          browser,
          url: args.url,
          country: args.country,
          shareLanguage: args.shareLanguage,
          callbackUrl: args.callbackUrl,
          readyTimeoutSeconds: args.readyTimeoutSeconds,
          waitForCapacitySeconds: args.waitForCapacitySeconds,
        },
        { parent: this },
      );
      return [browser, session] as const;
    });
    // One map per output, keyed by browser id; a session without a value (no share link) has no entry.
    const mapOf = (pick: (s: Session) => pulumi.Output<string | undefined>): pulumi.Output<Record<string, string>> =>
      all(sessions.map(([browser, s]) => pick(s).apply((v) => [browser, v] as const))).apply((entries) =>
        Object.fromEntries(entries.filter((e): e is readonly [string, string] => typeof e[1] === "string")),
      );
    this.sessionIds = mapOf((s) => s[REVIEW_SESSIONS_OUTPUTS.sessionIds]);
    // Secret already (BrowserSession's share links are); also secret when empty, so it never shows.
    this.shareUrls = secret(mapOf((s) => s.shareUrl));
    this.browserNames = mapOf((s) => s[REVIEW_SESSIONS_OUTPUTS.browserNames]);
    this.registerOutputs({ sessionIds: this.sessionIds, shareUrls: this.shareUrls, browserNames: this.browserNames });
  }
}

/**
 * The browser ids as the constructor needs them: a list known when the program runs (one child resource
 * each), without repeats. Whether each id is an enabled image is the sessions' own check.
 */
function browserList(name: string, browsers: unknown): string[] {
  const where = `ReviewSessions "${name}": browsers`;
  if (!Array.isArray(browsers)) {
    throw new ValidationError(
      `${where} must be a list of browser image ids known when the program runs, e.g. ["chrome", "firefox"]` + (Output.isInstance(browsers) ? ", not an output of another resource or a secret" : ""),
    );
  }
  if (browsers.length === 0) throw new ValidationError(`${where} must name at least one browser`);
  const seen = new Set<string>();
  for (const b of browsers) {
    if (typeof b !== "string" || b.trim() === "") throw new ValidationError(`${where} must hold non-empty strings, got ${JSON.stringify(b) ?? String(b)}`);
    if (seen.has(b)) throw new ValidationError(`${where} names "${b}" twice; each browser gets one session`);
    seen.add(b);
  }
  return [...seen];
}
