/**
 * `engine-conventions/pulumiSdk.ts` in the release bundle: the SDK's modules by the ids the plugin asks for, required
 * statically so that the bundler carries them. Each resolves, at build time, to the same file the SDK's own
 * files require (release/bundle.ts fails the build if the bundle holds two copies of a package).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- each module required by a literal id, so that the bundler carries it */
const MODULES: Record<string, () => unknown> = {
  "./provider": () => require("@pulumi/pulumi/provider"),
  "./proto/provider_grpc_pb": () => require("@pulumi/pulumi/proto/provider_grpc_pb"),
  "./proto/provider_pb": () => require("@pulumi/pulumi/proto/provider_pb"),
  "./proto/plugin_pb": () => require("@pulumi/pulumi/proto/plugin_pb"),
  "./proto/status_pb": () => require("@pulumi/pulumi/proto/status_pb"),
  "@grpc/grpc-js": () => require("@grpc/grpc-js"),
  "google-protobuf/google/protobuf/struct_pb": () => require("google-protobuf/google/protobuf/struct_pb"),
  "google-protobuf/google/protobuf/any_pb": () => require("google-protobuf/google/protobuf/any_pb"),
  "google-protobuf/google/protobuf/empty_pb": () => require("google-protobuf/google/protobuf/empty_pb"),
};

export function sdkRequire(id: string): unknown {
  const load = MODULES[id];
  if (!load) throw new Error(`the release bundle does not carry ${id} (add it to release/bundledSdk.ts)`);
  return load();
}
