import type * as pulumi from "@pulumi/pulumi";
import type * as Impl from "../dynamic";

/**
 * The provider object the engine serialises into every BrowserSession's state.
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
