import { describe, expect, it } from "vitest";
import { CHECKED_SDK_VERSIONS, pulumiModules } from "../../engine-conventions/sdkInternals";
import { sdkProviderService } from "../../plugin/provider";
import { GRPC_SERVER_OPTIONS } from "../../plugin/server";
import { sdkRequire } from "../../engine-conventions/pulumiSdk";

describe("the reaches into @pulumi/pulumi's internals", () => {
  it("hold for the installed @pulumi/pulumi", () => {
    const m = pulumiModules();
    expect(typeof m.grpc.Server.prototype.addService).toBe("function");
    expect(m.service).toBeDefined();
  });

  it("fail at once, naming what is missing, the installed release and the releases they were checked with", () => {
    const installed = (sdkRequire("./package.json") as { version: string }).version;
    const withoutInitFailed = (id: string) => {
      const real = sdkRequire(id) as Record<string, unknown>;
      return id === "./proto/provider_pb" ? { ...real, ErrorResourceInitFailed: undefined } : real;
    };
    expect(() => pulumiModules(withoutInitFailed)).toThrow(
      `the installed @pulumi/pulumi ${installed} is not as the remote-browser plugin expects: it lacks proto/provider_pb ErrorResourceInitFailed (checked with ${CHECKED_SDK_VERSIONS})`,
    );
  });
});

describe("the SDK's provider service, taken from its main", () => {
  it("is its server's implementation, taken without a server of its own: main binds no port, and a later main starts none", async () => {
    const m = pulumiModules();
    const server = m.grpc.Server.prototype;
    const bindAsync = server.bindAsync;
    const bound: string[] = [];
    server.bindAsync = function (this: unknown, address: string, ...rest: unknown[]) {
      bound.push(address);
      return bindAsync.call(this, address, ...rest);
    };
    try {
      const implementation = sdkProviderService(m, { version: "1.2.3" } as never, []);
      for (const name of ["construct", "call", "attach", "check", "create"]) expect(typeof implementation[name], name).toBe("function");
      const { main } = sdkRequire("./provider") as typeof import("@pulumi/pulumi/provider");
      await main({ version: "1.2.3" } as never, []);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      server.bindAsync = bindAsync;
    }
    expect(bound).toEqual([]);
  });

  it("fails, naming the installed release, when main registers no provider service", () => {
    const installed = (sdkRequire("./package.json") as { version: string }).version;
    const withoutRegistration = (id: string) => (id === "./provider" ? { main: async () => undefined } : sdkRequire(id));
    expect(() => sdkProviderService(pulumiModules(), { version: "1.2.3" } as never, [], withoutRegistration)).toThrow(
      `the installed @pulumi/pulumi ${installed} is not as the remote-browser plugin expects: it did not register its provider service as expected`,
    );
  });
});

describe("the plugin's gRPC server", () => {
  it("takes the SDK server's options (restated, so that starting does not load the SDK's runtime)", () => {
    const settings = sdkRequire("./runtime/settings") as { grpcChannelOptions: Record<string, unknown> };
    expect(GRPC_SERVER_OPTIONS).toEqual(settings.grpcChannelOptions);
  });
});
