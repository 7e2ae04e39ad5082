import type * as pulumi from "@pulumi/pulumi";
import type * as Impl from "../dynamic";

/**
 * The provider every BrowserSession stores in its state, as the source of STORED_PROVIDER_TEXT below (its
 * serialised text, which is what the state holds).
 *
 * Each method is a one-liner that loads the installed implementation by package name when it is
 * called. The closure therefore captures nothing -- no key, no client, no socket, no local module
 * copied by value -- and a stack's stored provider keeps working, and picks up fixes, when the
 * package is upgraded: `destroy` and `refresh` run the stored text, not the program's code.
 */
export const storedProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => (require("pulumi-remote-browser/provider") as typeof Impl).configure(req),
  check: (olds, news) => (require("pulumi-remote-browser/provider") as typeof Impl).check(olds, news),
  diff: (id, olds, news) => (require("pulumi-remote-browser/provider") as typeof Impl).diff(id, olds, news),
  create: (inputs) => (require("pulumi-remote-browser/provider") as typeof Impl).create(inputs),
  read: (id, props) => (require("pulumi-remote-browser/provider") as typeof Impl).read(id, props),
  update: (id, olds, news) => (require("pulumi-remote-browser/provider") as typeof Impl).update(id, olds, news),
  delete: (id, props) => (require("pulumi-remote-browser/provider") as typeof Impl).del(id, props),
};

/** Each method of `storedProvider`: its parameters and the implementation's function it calls. */
const FORWARDS: ReadonlyArray<readonly [method: keyof typeof storedProvider, params: string, target: keyof typeof Impl]> = [
  ["configure", "req", "configure"],
  ["check", "olds, news", "check"],
  ["diff", "id, olds, news", "diff"],
  ["create", "inputs", "create"],
  ["read", "id, props", "read"],
  ["update", "id, olds, news", "update"],
  ["delete", "id, props", "del"],
];

function closure(name: string, params: number, captured: string, body: string): string {
  const args = Array.from({ length: params }, (_, i) => `__${i}`).join(", ");
  return (
    `function ${name}(${args}) {\n  return (function() {\n    with({ ${captured}this: undefined, arguments: undefined }) {\n\n` +
    `return ${body};\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n`
  );
}

/**
 * `storedProvider` as `pulumi.dynamic.Resource` would store it: the text Pulumi's closure serialiser makes
 * of it, byte for byte (test/sdk/stored-provider.test.ts serialises `storedProvider` and compares), so that
 * states written before and after hold the same text. Written out here because the serialiser is most of
 * a program's start: it opens a V8 inspector session, which reports every script loaded so far, and parses
 * the functions -- about 0.6 s of CPU in each `pulumi up`, `preview` and `refresh` of a program with sessions.
 */
export const STORED_PROVIDER_TEXT =
  "exports.handler = __f0;\n\n" +
  `var __provider = {${FORWARDS.map(([m], i) => `${m}: __f${i + 1}`).join(", ")}};\n\n` +
  FORWARDS.map(([, params, target], i) =>
    closure(`__f${i + 1}`, params.split(", ").length, "", `(${params}) => require("pulumi-remote-browser/provider").${target}(${params})`),
  ).join("\n") +
  "\n" +
  closure("__f0", 0, "provider: __provider, ", "() => provider");
