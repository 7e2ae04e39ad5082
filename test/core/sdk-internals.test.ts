import { describe, expect, it } from "vitest";
import { CHECKED_SDK_VERSIONS, pulumiModules } from "../../core/sdkInternals";
import { sdkRequire } from "../../core/pulumiSdk";

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
