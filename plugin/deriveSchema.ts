import { ComponentProvider } from "@pulumi/pulumi/provider/experimental";
import { COMPONENTS, markSecretOutputs, type PackageSchema } from "./packageSchema";
import { PACKAGE_NAME } from "./identity";

/**
 * What `componentProviderHost` derives for this package from its TypeScript sources (the package root
 * with its `package.json`, `tsconfig.json` and entry point `index.ts`), with the secret outputs marked.
 * This needs the sources and TypeScript (the analyzer loads the compiler), and takes seconds: it is run when
 * the schema file is generated and checked, never by the plugin (see `provider.ts`), which imports nothing
 * of this module.
 */
export async function deriveSchema(packageRoot: string): Promise<PackageSchema> {
  const analyzer = new ComponentProvider({
    name: PACKAGE_NAME,
    components: COMPONENTS.map((c) => c.component),
    dirname: packageRoot,
  });
  return markSecretOutputs(JSON.parse(await analyzer.getSchema()));
}
