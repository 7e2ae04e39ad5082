import * as fs from "node:fs";
import * as path from "node:path";
import type { Inputs } from "@pulumi/pulumi";
import type { ComponentResource, ComponentResourceOptions } from "@pulumi/pulumi";
import type { ConstructResult, Provider } from "@pulumi/pulumi/provider";
import { ComponentProvider } from "@pulumi/pulumi/provider/experimental";
import { pluginIdentity } from "../native/identity";
import { COMPONENTS, PACKAGE_NAME, PackageSchema, typeToken, withNativeSchema, withVersion } from "./packageSchema";
// Imported, not read from disk: the release binary carries it in its bundle.
import componentSchema from "./schema.json";

/**
 * The component provider the plugin serves, as `ComponentProvider` of `@pulumi/pulumi/provider/experimental`
 * (what `componentProviderHost` builds) would, but without its need for a package.json on disk (the release
 * binary has none), and serving the schema that its analyzer derived from this package's
 * TypeScript sources, with the secret outputs marked (`packageSchema.ts`), from `component/schema.json` --
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
    const problem = dynamicProviderProblem(process.cwd());
    if (problem) throw new Error(problem);
    const instance: ComponentResource & Record<string, unknown> = new entry.component(name, inputs, options) as never;
    const state: Inputs = {};
    for (const output of Object.keys(resource.properties)) state[output] = instance[output];
    return { urn: instance.urn, state };
  }
}

/**
 * The sessions are dynamic resources: the engine runs their provider (`pulumi-resource-pulumi-nodejs`) in
 * the program's folder, the plugin's working folder too, and it loads `@pulumi/pulumi` and this package
 * from there. A program in another language has no `node_modules` of its own unless it is given one;
 * say so before any session starts, instead of the provider's failure to start.
 */
export function dynamicProviderProblem(dir: string): string | undefined {
  const missing = ["@pulumi/pulumi", "pulumi-remote-browser"].filter((name) => !installedFor(dir, name));
  if (missing.length === 0) return undefined;
  return (
    `the remote-browser components need the npm packages pulumi-remote-browser and @pulumi/pulumi installed ` +
    `where the program runs (${dir}, or a folder above it): their sessions are dynamic resources, whose ` +
    `provider loads both from there (missing: ${missing.join(", ")}). ` +
    `Run \`npm install pulumi-remote-browser @pulumi/pulumi\` in the program's folder.`
  );
}

/**
 * Whether a module at `dir` finds package `name` as the provider's stored methods look for it: in the
 * `node_modules` folders from `dir` up, then NODE_PATH (not by self-reference, which that code cannot use).
 */
function installedFor(dir: string, name: string): boolean {
  const roots: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    roots.push(path.join(d, "node_modules"));
    if (path.dirname(d) === d) break;
  }
  roots.push(...(process.env.NODE_PATH ?? "").split(path.delimiter).filter(Boolean));
  return roots.some((root) => fs.existsSync(path.join(root, name, "package.json")));
}
