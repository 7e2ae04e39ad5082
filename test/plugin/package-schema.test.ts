import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LOCALES } from "../../client/schemas";
import { deriveSchema, type PackageSchema, SCHEMA_FILE, schemaFileText, withNativeSchema } from "../../plugin/packageSchema";
import { RemoteBrowserComponentProvider } from "../../plugin/provider";
import { API_INPUTS, PROVIDER_INPUTS } from "../../core/declaration";

/**
 * The schema the plugin serves: `plugin/schema.json` must be what `componentProviderHost`'s analyzer
 * derives from the TypeScript sources (with the secret outputs marked), and it must say what the
 * component is: its types, required inputs, secret outputs and descriptions.
 *
 * After changing the component, its args or its doc comments, write the file again with
 *   UPDATE_COMPONENT_SCHEMA=1 npx vitest run --project unit test/plugin/package-schema.test.ts
 */
const root = path.resolve(__dirname, "..", "..");
const TYPE = "remote-browser:index:ReviewSessions";
const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;

let served: PackageSchema;
beforeAll(async () => {
  served = JSON.parse(await new RemoteBrowserComponentProvider().getSchema());
});

describe("the component schema", () => {
  it("is what the analyzer derives from the TypeScript sources (plugin/schema.json is not stale)", async () => {
    const derived = await deriveSchema(root);
    const file = path.join(root, SCHEMA_FILE);
    if (process.env.UPDATE_COMPONENT_SCHEMA === "1") fs.writeFileSync(file, schemaFileText(derived));
    expect(fs.readFileSync(file, "utf8"), `${SCHEMA_FILE} is stale: run UPDATE_COMPONENT_SCHEMA=1 npx vitest run --project unit test/plugin/package-schema.test.ts`).toBe(schemaFileText(derived));
    // Served as derived, with the installed package's version, beside the native part (test/plugin/native-schema.test.ts).
    expect(served).toEqual(withNativeSchema({ ...derived, version }));
  }, 60_000);

  it("is the package remote-browser at the package's version, with the component ReviewSessions", () => {
    expect(served.name).toBe("remote-browser");
    expect(served.version).toBe(version);
    expect(Object.keys(served.resources)).toEqual([TYPE, "remote-browser:index:BrowserSession"]);
    const resource = served.resources[TYPE];
    expect(resource.isComponent).toBe(true);
    expect(resource.description).toMatch(/one remote browser session per requested browser/i);
  });

  it("requires browsers and url, and types every input", () => {
    const { inputProperties, requiredInputs } = served.resources[TYPE];
    expect(requiredInputs).toEqual(["browsers", "url"]);
    const types = Object.fromEntries(Object.entries(inputProperties).map(([k, p]) => [k, p.$ref ?? (p.items ? `${p.type}<${p.items.type}>` : p.type)]));
    expect(types).toEqual({
      browsers: "array<string>",
      url: "string",
      country: "string",
      shareLanguage: "#/types/remote-browser:index:ShareLanguage",
      callbackUrl: "string",
      readyTimeoutSeconds: "number",
      waitForCapacitySeconds: "number",
    });
    // The list decides how many sessions there are, so it must be known when the program runs.
    expect(inputProperties.browsers.plain).toBe(true);
    expect(inputProperties.browsers.items?.plain).toBe(true);
    for (const [name, p] of Object.entries(inputProperties)) {
      if (name !== "browsers") expect(p.plain, `${name} takes an output`).toBeUndefined();
    }
  });

  it("passes on only inputs a BrowserSession has", () => {
    const sessionInputs: readonly string[] = [...API_INPUTS, ...PROVIDER_INPUTS];
    for (const name of Object.keys(served.resources[TYPE].inputProperties)) {
      if (name !== "browsers") expect(sessionInputs, name).toContain(name);
    }
  });

  it("offers the share-link languages the service has, as an enum", () => {
    const shareLanguage = served.types["remote-browser:index:ShareLanguage"];
    expect(shareLanguage.type).toBe("string");
    expect(shareLanguage.enum!.map((e) => e.value)).toEqual([...LOCALES]);
  });

  it("answers maps of strings keyed by browser, with only the share links secret", () => {
    const { properties, required } = served.resources[TYPE];
    expect(Object.keys(properties).sort()).toEqual(["browserNames", "sessionIds", "shareUrls"]);
    expect(required).toEqual(["browserNames", "sessionIds", "shareUrls"]);
    for (const p of Object.values(properties)) {
      expect(p.type).toBe("object");
      expect(p.additionalProperties).toEqual({ type: "string" });
    }
    expect(properties.shareUrls.secret).toBe(true);
    expect(properties.sessionIds.secret).toBeUndefined();
    expect(properties.browserNames.secret).toBeUndefined();
  });

  it("describes every input and output", () => {
    const { inputProperties, properties } = served.resources[TYPE];
    for (const [name, p] of Object.entries({ ...inputProperties, ...properties })) {
      expect(p.description, name).toMatch(/\w{3,}.*\w{3,}/);
    }
    expect(properties.shareUrls.description).toMatch(/^Secret\./);
  });
});
