import type * as pulumi from "@pulumi/pulumi";
import type * as Impl from "../dynamic";

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
  FORWARDS.map(([, params, target], i) =>
    closure(`__f${i + 1}`, params.split(", ").length, "", `(${params}) => require("pulumi-remote-browser/provider").${target}(${params})`),
  ).join("\n") +
  "\n" +
  closure("__f0", 0, "provider: __provider, ", "() => provider");
