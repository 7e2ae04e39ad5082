import { createRequire } from "node:module";

/**
 * A module as the installed `@pulumi/pulumi` itself resolves it (`./provider`, `@grpc/grpc-js`, ...): the
 * plugin extends the SDK's own gRPC server and speaks to the engine with the SDK's own gRPC, which must be
 * the very copies the SDK loaded, wherever npm placed them.
 *
 * The release binary carries one bundled copy of each and no `node_modules`: its bundler puts
 * `release/bundledSdk.ts` in this module's place (release/bundle.ts).
 */
export function sdkRequire(id: string): unknown {
  return createRequire(require.resolve("@pulumi/pulumi/package.json"))(id);
}
