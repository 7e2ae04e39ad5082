import * as pulumi from "@pulumi/pulumi";
import type * as Impl from "../dynamic/index";
import type { Locale } from "../client/schemas";
import { DYNAMIC_OUTPUTS, wireInputs } from "../dynamic/wireFields";
import { warnAboutPlainSecrets } from "./configWarnings";
import { INPUTS, OUTPUTS, SECRET_OUTPUTS, type InputName, type OutputName } from "../core/declaration";
import { DYNAMIC_SESSION_TYPE } from "../engine-conventions/wire";
import { outputIsKnown } from "../engine-conventions/sdkInternals";

/** Viewer languages of a share link: the service's locales. */
export type ShareLanguage = Locale;

export interface BrowserSessionArgs {
  /** Browser image id to start, e.g. `chrome`; must be an enabled image (see `getImages()`). Changing it replaces the session. */
  browser: pulumi.Input<string>;
  /** First page to open; at most 10,000 characters. Changing it replaces the session. */
  url?: pulumi.Input<string>;
  /** Browser interface language code, e.g. `en` or `de`. Changing it replaces the session. @default the account setting, else `en` */
  language?: pulumi.Input<string>;
  /** Keyboard layout code, e.g. `us` or `de`. Changing it replaces the session. @default the account setting, else `us` */
  layout?: pulumi.Input<string>;
  /**
   * Exit location: a country code (`us`, `de`, `uk`), a city code (`us-dal`) as `getLocations()` lists them,
   * or `auto`. Needs location access in the plan. When no exit is free there, the session starts on the
   * default connection and `locationApplied` is false (see `requireLocation`). Changing it replaces the session.
   */
  country?: pulumi.Input<string>;
  /**
   * `residential` browses through a residential connection (needs residential data in the plan; uses only the
   * country part of `country`). Changing it replaces the session.
   */
  egress?: pulumi.Input<"residential">;
  /** Viewer language of the share link: a change rewrites the link's `<locale>` segment, and the session runs on. Changes in place. @default "en" */
  shareLanguage?: pulumi.Input<ShareLanguage>;
  /** http(s) address the viewer opens when someone leaves the session or its ended screen; at most 2,000 characters. Changing it replaces the session. */
  callbackUrl?: pulumi.Input<string>;
  /**
   * Idempotency key for the create call, 1 to 128 characters. Changing it replaces the session. @default a key derived from the stack, the
   * resource name and its inputs, stable across retries and interrupted updates and new for a replacement
   */
  idempotencyKey?: pulumi.Input<string>;
  /** How long create waits for the session to be running before it ends it and fails. Changes in place. @default 300 */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** Fail (and end the session) when the requested location could not be applied. Changes in place. @default false */
  requireLocation?: pulumi.Input<boolean>;
  /**
   * When the account's running limit is reached, wait up to this long for a free slot instead of failing at
   * once with `upgrade` (for stacks that share one account, e.g. one per pull request). Changes in place.
   * @default `remote-browser:waitForCapacitySeconds`, else 0
   */
  waitForCapacitySeconds?: pulumi.Input<number>;
}

/**
 * The args and outputs above are written out for their docs; they must name exactly the fields of the
 * provider's field table (core/declaration.ts), which this checks when the package is compiled.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const argsMatchFields: Same<keyof BrowserSessionArgs, InputName> = true;
const outputsMatchFields: Same<Exclude<keyof BrowserSession, keyof pulumi.CustomResource>, InputName | OutputName> = true;
void argsMatchFields;
void outputsMatchFields;

/**
 * A remote browser session. `pulumi up` starts it and waits until it is running; `pulumi destroy` ends it.
 * `shareUrl` opens the session for a viewer: it is a password to the session and is kept secret.
 */
export class BrowserSession extends pulumi.CustomResource {
  /** The type token of this resource in the state. */
  static readonly __pulumiType = DYNAMIC_SESSION_TYPE;

  public readonly browser!: pulumi.Output<string>;
  public readonly url!: pulumi.Output<string | undefined>;
  public readonly language!: pulumi.Output<string | undefined>;
  public readonly layout!: pulumi.Output<string | undefined>;
  public readonly country!: pulumi.Output<string | undefined>;
  public readonly egress!: pulumi.Output<"residential" | undefined>;
  public readonly shareLanguage!: pulumi.Output<ShareLanguage | undefined>;
  public readonly callbackUrl!: pulumi.Output<string | undefined>;
  public readonly idempotencyKey!: pulumi.Output<string | undefined>;
  public readonly readyTimeoutSeconds!: pulumi.Output<number | undefined>;
  public readonly requireLocation!: pulumi.Output<boolean | undefined>;
  public readonly waitForCapacitySeconds!: pulumi.Output<number | undefined>;

  /** The session's identifier (`vmId`), also the resource's id. */
  public readonly vmId!: pulumi.Output<string>;
  /** Secret. `{share_base}/<locale>/s?<link_id>`: whoever has it can view the session. Absent when the service could not create a link; unknown after an import. */
  public readonly shareUrl!: pulumi.Output<string | undefined>;
  /** Secret. The path form of the share link, `/<locale>/s?<link_id>`. */
  public readonly shareUrlPath!: pulumi.Output<string | undefined>;
  /** The session's state when last read: `running` after create; refreshed by `pulumi refresh`. */
  public readonly status!: pulumi.Output<string>;
  /** Display name of the browser. */
  public readonly browserName!: pulumi.Output<string | undefined>;
  /** When the service started the session (ISO 8601). */
  public readonly created!: pulumi.Output<string | undefined>;
  /** False when no exit was free in the requested location and the session runs on the default connection. */
  public readonly locationApplied!: pulumi.Output<boolean | undefined>;
  /** Why the location was not applied (`unavailable`), when `locationApplied` is false. */
  public readonly locationReason!: pulumi.Output<string | undefined>;
  /** API version the session was started with (`v8`, or `v7` which cannot wait, refresh or end). */
  public readonly apiVersion!: pulumi.Output<"v8" | "v7">;
  /**
   * Fingerprint of the account and service that made the session, `acct2-<salt>-<digests>@svc-<hash>` (not
   * secret; no key in it). Refresh and destroy refuse to act on the session with the key of another account.
   */
  public readonly owner!: pulumi.Output<string | undefined>;

  constructor(name: string, args: BrowserSessionArgs, opts?: pulumi.CustomResourceOptions) {
    // The engine's import reads a resource without its stored provider, which a dynamic provider cannot
    // serve. So `import: <vmId>` becomes an adoption: create takes over the running session instead of
    // starting one.
    warnAboutPlainSecrets();
    const adopt = opts?.import;
    if (adopt !== undefined) opts = { ...opts, import: undefined };
    const props: Record<string, unknown> = {};
    for (const field of Object.keys(INPUTS) as InputName[]) props[field] = args?.[field];
    Object.assign(
      props,
      wireInputs({
        // The resource's identity in its stack: the seed of its idempotency keys.
        seed: `${pulumi.getProject()}/${pulumi.getStack()}/${name}`,
        adoptVmId: adopt,
        // The engine does not tell a dynamic provider which resource it serves; with its URN, the provider
        // puts progress and warnings on this resource's row. diff ignores it: it changes nothing.
        urn: ownUrn(name, opts?.parent),
        replaceOnChanges: opts?.replaceOnChanges,
      }),
    );
    for (const field of [...Object.keys(OUTPUTS), ...DYNAMIC_OUTPUTS]) props[field] = undefined;
    // What `pulumi.dynamic.Resource` registers -- its type, with the stored provider as `__provider` --
    // without its constructor, which runs the closure serialiser on every construction (see STORED_PROVIDER_TEXT, below).
    super(
      DYNAMIC_SESSION_TYPE,
      name,
      { ...props, __provider: STORED_PROVIDER_TEXT },
      pulumi.mergeOptions(opts, {
        additionalSecretOutputs: [...SECRET_OUTPUTS, ...DYNAMIC_OUTPUTS],
        // End the old session before starting its replacement: a plan with a running limit of 1 can
        // still change a session (see docs/browser-session.md on replacement).
        deleteBeforeReplace: true,
      }),
    );
  }
}

// Still an instance of `pulumi.dynamic.Resource`, as when that class's constructor built it: code that
// tells dynamic resources apart by class keeps working.
Object.setPrototypeOf(BrowserSession.prototype, pulumi.dynamic.Resource.prototype);

/**
 * The URN the engine gives a BrowserSession named `name` under `parent`. Handed over as a plain promise:
 * as an Output it would make the session depend on its parent -- and, through a component parent, on
 * every sibling session, which would then wait for one another.
 */
function ownUrn(name: string, parent: pulumi.Resource | undefined): Promise<string | undefined> {
  const urn = pulumi.createUrn(name, BrowserSession.__pulumiType, parent);
  return new Promise((resolve) => {
    urn.apply((u) => resolve(u));
    // URNs are known even in a preview; should one not be, the session goes without rather than waiting.
    outputIsKnown(urn).then(
      (known) => known || resolve(undefined),
      () => resolve(undefined),
    );
  });
}

/**
 * The provider every BrowserSession stores in its state: each method a one-liner that loads the installed
 * implementation by package name when it is called. It therefore captures nothing -- no key, no client, no
 * socket, no local module copied by value -- and a stack's stored provider keeps working, and picks up
 * fixes, when the package is upgraded: `destroy` and `refresh` run the stored text, not the program's code.
 *
 * Each row: the method, its parameters, and the implementation's function it calls.
 */
const FORWARDS: ReadonlyArray<readonly [method: keyof pulumi.dynamic.ResourceProvider, params: string, target: keyof typeof Impl]> = [
  ["configure", "req", "configure"],
  ["check", "olds, news", "check"],
  ["diff", "id, olds, news", "diff"],
  ["create", "inputs", "create"],
  ["read", "id, props", "read"],
  ["update", "id, olds, news", "update"],
  ["delete", "id, props", "del"],
];

/** A function as Pulumi's closure serialiser writes one that captures `captured`. */
function closure(name: string, params: number, captured: string, body: string): string {
  const args = Array.from({ length: params }, (_, i) => `__${i}`).join(", ");
  return (
    `function ${name}(${args}) {\n  return (function() {\n    with({ ${captured}this: undefined, arguments: undefined }) {\n\n` +
    `return ${body};\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n`
  );
}

/**
 * The stored provider as `pulumi.dynamic.Resource` stored it: the text Pulumi's closure serialiser made of
 * the provider object these rows describe, byte for byte (test/sdk/stored-provider.test.ts serialises that
 * object and compares, and compares with the states earlier releases wrote), so that states written before
 * and after hold the same text. Written out here because the serialiser is most of a program's start: it
 * opens a V8 inspector session, which reports every script loaded so far, and parses the functions --
 * about 0.6 s of CPU in each `pulumi up`, `preview` and `refresh` of a program with sessions.
 */
export const STORED_PROVIDER_TEXT =
  "exports.handler = __f0;\n\n" +
  `var __provider = {${FORWARDS.map(([m], i) => `${m}: __f${i + 1}`).join(", ")}};\n\n` +
  FORWARDS.map(([, params, target], i) => closure(`__f${i + 1}`, params.split(", ").length, "", `(${params}) => require("pulumi-remote-browser/provider").${target}(${params})`)).join("\n") +
  "\n" +
  closure("__f0", 0, "provider: __provider, ", "() => provider");
