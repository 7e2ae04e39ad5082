/**
 * Node.js's floor for a plugin, a reference of `npm run bench -- release` (bench/release.ts): the same gRPC
 * service as the plugin (the SDK's ResourceProvider, with `@grpc/grpc-js`), answering GetPluginInfo and
 * GetSchema, bound to a port it prints -- and nothing else. What a Node.js plugin cannot start faster than.
 */
import { sdkRequire } from "../engine-conventions/pulumiSdk";

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDK's generated gRPC modules, loaded by id, have no types */
const grpc = sdkRequire("@grpc/grpc-js") as any;
const { ResourceProviderService } = sdkRequire("./proto/provider_grpc_pb") as any;
const { GetSchemaResponse } = sdkRequire("./proto/provider_pb") as any;
const { PluginInfo } = sdkRequire("./proto/plugin_pb") as any;
/* eslint-enable @typescript-eslint/no-explicit-any */

const server = new grpc.Server();
server.addService(ResourceProviderService, {
  getPluginInfo: (_call: unknown, callback: (err: null, resp: unknown) => void) => {
    const resp = new PluginInfo();
    resp.setVersion("0.0.0");
    callback(null, resp);
  },
  getSchema: (_call: unknown, callback: (err: null, resp: unknown) => void) => {
    const resp = new GetSchemaResponse();
    resp.setSchema(JSON.stringify({ name: "floor", version: "0.0.0" }));
    callback(null, resp);
  },
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, port: number) => {
  if (err) throw err;
  process.stdout.write(`${port}\n`);
});
