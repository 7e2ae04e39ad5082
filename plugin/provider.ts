import type { Inputs } from "@pulumi/pulumi";
import type { ComponentResource, ComponentResourceOptions } from "@pulumi/pulumi";
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
    const instance: ComponentResource & Record<string, unknown> = new entry.component(name, inputs, options) as never;
    const state: Inputs = {};
    for (const output of Object.keys(resource.properties)) state[output] = instance[output];
    return { urn: instance.urn, state };
  }
}
