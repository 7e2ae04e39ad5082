import type { Inputs } from "@pulumi/pulumi";
import type { ComponentResource, ComponentResourceOptions } from "@pulumi/pulumi";
import { DependencyProviderResource } from "@pulumi/pulumi";
import type { ConstructResult, Provider } from "@pulumi/pulumi/provider";
import { ComponentProvider } from "@pulumi/pulumi/provider/experimental";
import { pluginIdentity } from "./identity";
import { COMPONENTS, PACKAGE_NAME, PackageSchema, typeToken, withNativeSchema, withVersion } from "./packageSchema";
// Imported, not read from disk: the release binary carries it in its bundle.
import componentSchema from "./schema.json";

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
 */
export class RemoteBrowserComponentProvider implements Provider {
  readonly version = pluginIdentity().version;
  private readonly served: PackageSchema = withNativeSchema(withVersion(componentSchema as unknown as PackageSchema, this.version));
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
    return JSON.stringify(this.served);
  }

  /**
   * As `ComponentProvider.construct`, with the outputs named by the served schema rather than by a new
   * analysis of the sources.
   */
  async construct(name: string, type: string, inputs: Inputs, options: ComponentResourceOptions): Promise<ConstructResult> {
    ComponentProvider.validateResourceType(PACKAGE_NAME, type);
    const entry = COMPONENTS.find((c) => typeToken(c.component.name) === type);
    const resource = this.served.resources[type];
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
