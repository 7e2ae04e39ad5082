import type { Inputs, ComponentResource, ComponentResourceOptions } from "@pulumi/pulumi";
import type { ConstructResult, Provider } from "@pulumi/pulumi/provider";
import { DependencyProviderResource } from "@pulumi/pulumi/resource";
import { pluginIdentity, PACKAGE_NAME, typeToken } from "./identity";
import { COMPONENTS, servedSchema } from "./packageSchema";
import { sdkRequire } from "../engine-conventions/pulumiSdk";
import { sdkChanged, type PulumiModules } from "../engine-conventions/sdkInternals";

/**
 * The component provider the plugin serves, as `ComponentProvider` of `@pulumi/pulumi/provider/experimental`
 * (what `componentProviderHost` builds) would, but without its need for a package.json on disk (the release
 * binary has none), and serving the schema that its analyzer derived from this package's
 * TypeScript sources, with the secret outputs marked (`packageSchema.ts`), from `plugin/schema.json` --
 * and beside it the natively served part (BrowserSession, the data sources, the provider's settings).
 *
 * Why a derived file and not the analyzer at plugin start, as `componentProviderHost` does:
 * - an installed copy of the package ships compiled JavaScript only; the analyzer needs the TypeScript
 *   sources, the `tsconfig.json` and the TypeScript compiler (without one it falls back to the TypeScript
 *   3.8 vendored in `@pulumi/pulumi`, which cannot read these sources);
 * - the analysis compiles the whole package, about three seconds, and `ComponentProvider.construct` runs
 *   it in every plugin process, so every `pulumi up` would pay it;
 * - the analyzer has no notion of secrets, so its schema needs marking anyway.
 * A unit test derives the schema again from the sources and fails when `schema.json` differs.
 *
 * The front door (server.ts) loads this module at the first call the SDK's server answers (Construct, Call):
 * it brings the components and the SDK's resource model, and nothing of the analyzer.
 */
export class RemoteBrowserComponentProvider implements Provider {
  readonly version = pluginIdentity().version;
  /** The engine's reference (`<urn>::<id>`) to the provider resource this process serves, once configured. */
  private own?: string;

  /**
   * Which provider resource of the engine this process serves, as Configure names it. The engine starts
   * one process per provider resource and calls Construct on the component's: its sessions are given that
   * provider, so they run in this process, on its settings. Found by package, version and download address
   * instead, they got a provider (and a process) of their own whenever the program had registered the
   * component with other ones (a YAML program without a version did).
   */
  servedAs(urn: string, id: string): void {
    this.own = `${urn}::${id}`;
  }

  async getSchema(): Promise<string> {
    return JSON.stringify(servedSchema());
  }

  /**
   * As `ComponentProvider.construct`, with the outputs named by the served schema rather than by a new
   * analysis of the sources.
   */
  async construct(name: string, type: string, inputs: Inputs, options: ComponentResourceOptions): Promise<ConstructResult> {
    checkComponentType(type);
    const entry = COMPONENTS.find((c) => typeToken(c.component.name) === type);
    const resource = servedSchema().resources[type];
    if (!entry || !resource) throw new Error(`Component class not found for '${type.split(":")[2]}'`);
    const instance: ComponentResource & Record<string, unknown> = new entry.component(name, inputs, this.withOwnProvider(options)) as never;
    const state: Inputs = {};
    for (const output of Object.keys(resource.properties)) state[output] = instance[output];
    return { urn: instance.urn, state };
  }

  /**
   * `options` with this process's provider for the package's resources, unless the program chose one (its
   * `providers` come after: in a list, the SDK keeps the last provider of a package).
   */
  private withOwnProvider(options: ComponentResourceOptions): ComponentResourceOptions {
    if (!this.own) return options;
    const own = new DependencyProviderResource(this.own);
    const given = options.providers;
    return { ...options, providers: Array.isArray(given) ? [own, ...given] : { [PACKAGE_NAME]: own, ...given } };
  }
}

/**
 * The refusals of `ComponentProvider.validateResourceType`, in its words: a component's type is
 * `remote-browser:index:<Name>` (or with an empty module). Checked here rather than by that method, whose
 * module loads the schema analyzer and with it the TypeScript compiler.
 */
function checkComponentType(type: string): void {
  const parts = type.split(":");
  if (parts.length !== 3) throw new Error(`Invalid resource type ${type}`);
  const [pkg, module, name] = parts as [string, string, string];
  if (pkg !== PACKAGE_NAME) throw new Error(`Invalid package name ${pkg}, expected '${PACKAGE_NAME}'`);
  if (module !== "index" && module !== "") throw new Error(`Invalid module '${module}' in resource type '${type}', expected 'index' or empty string`);
  if (name === "") throw new Error(`Empty resource name in resource type '${type}'`);
}

/**
 * The SDK's provider service implementation serving `components`, as its `main` builds it, without the
 * server `main` would start: `main` registers the implementation with gRPC once, before its first await, and
 * that registration is where it is taken and `main` stopped, before it binds a port or prints one. `main`
 * has marked the SDK as serving by then, so a later `main` (run-plugin's componentProviderHost) starts no
 * second server. Fails, rather than serving a half provider, if the installed SDK no longer registers its
 * service that way.
 */
export function sdkProviderService(m: PulumiModules, components: Provider, args: string[], load: (id: string) => unknown = sdkRequire): Record<string, unknown> {
  // Loaded here, from the same installed copy whose gRPC module is intercepted below.
  const { main } = load("./provider") as typeof import("@pulumi/pulumi/provider");
  const server = m.grpc.Server.prototype;
  const addService = server.addService;
  const taken = new Error("the SDK's provider service, taken at its registration");
  let implementation: Record<string, unknown> | undefined;
  server.addService = function (this: unknown, service: unknown, impl: Record<string, unknown>) {
    if (service === m.service && !implementation) {
      implementation = impl;
      throw taken;
    }
    return addService.call(this, service, impl);
  };
  let stopped: Promise<void>;
  try {
    stopped = main(components, args);
  } finally {
    server.addService = addService;
  }
  // `main` is async: the throw above ends it as a rejection, which is its expected end here.
  stopped.catch((err: unknown) => {
    if (err !== taken) throw err;
  });
  if (!implementation) throw sdkChanged("it did not register its provider service as expected; the remote-browser plugin cannot serve its components");
  return implementation;
}
